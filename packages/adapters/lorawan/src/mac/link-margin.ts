// The link margin LinkCheckAns reports and ADR spends: SNR above what the spreading factor needs.
import { ok, refuse, type Result } from "../codec/result.js";

/** SNR (dB) a LoRa receiver needs to demodulate each spreading factor (Semtech SX1276 datasheet table 13). */
export const DEMODULATION_FLOOR_DB: Readonly<Record<number, number>> = {
  5: -2.5,
  6: -5,
  7: -7.5,
  8: -10,
  9: -12.5,
  10: -15,
  11: -17.5,
  12: -20,
};

/** The LinkCheckAns margin: dB of SNR above the demodulation floor of the spreading factor, as 0..254. */
export function linkMargin(snrDb: number, spreadingFactor: number): Result<number> {
  const floor = DEMODULATION_FLOOR_DB[spreadingFactor];
  if (floor === undefined) return refuse(`spreading factor ${spreadingFactor} must be 5..12`);
  if (!Number.isFinite(snrDb)) return refuse("SNR must be a number of dB");
  return ok(Math.min(254, Math.max(0, Math.floor(snrDb - floor))));
}
