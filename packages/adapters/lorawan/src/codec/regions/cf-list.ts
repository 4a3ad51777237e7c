// The CFList of a JoinAccept (LoRaWAN 1.0.2 §6.2.5, RP002-1.0.x §2.x.4): type 0 lists up to five extra channel
// frequencies, type 1 (US915, AU915 from LoRaWAN 1.0.3) masks the enabled uplink channels.
import { ok, refuse, type Result } from "../result.js";

/** CFList type 0 of a JoinAccept: up to 5 channel frequencies (Hz, multiples of 100 Hz), 3 bytes each, LSB first. */
export function encodeCfListFrequencies(frequencies: readonly number[]): Result<Buffer> {
  if (frequencies.length > 5) return refuse(`a CFList holds at most 5 frequencies, got ${frequencies.length}`);
  const out = Buffer.alloc(16);
  for (const [i, hz] of frequencies.entries()) {
    if (!Number.isInteger(hz) || hz <= 0 || hz % 100 !== 0 || hz / 100 > 0xffffff)
      return refuse(`CFList frequency ${hz} Hz must be a positive multiple of 100 Hz below 1677.7216 MHz`);
    out.writeUIntLE(hz / 100, i * 3, 3);
  }
  out[15] = 0;
  return ok(out);
}

/** CFList type 1 (RP002, US915/AU915): a mask of the enabled uplink channels 0..71 and CFListType 1. */
export function encodeCfListChannelMask(channels: readonly number[]): Result<Buffer> {
  const out = Buffer.alloc(16);
  for (const c of channels) {
    if (!Number.isInteger(c) || c < 0 || c > 71) return refuse(`channel ${c} must be 0..71`);
    out[c >> 3]! |= 1 << (c & 7);
  }
  out[15] = 1;
  return ok(out);
}

/** A decoded CFList: channel frequencies (type 0, Hz, zeros left out) or enabled channels (type 1). */
export type CfList = { type: 0; frequencies: number[] } | { type: 1; channels: number[] };

/** Decodes a 16-byte CFList of type 0 or 1. */
export function decodeCfList(bytes: Uint8Array): Result<CfList> {
  if (bytes.length !== 16) return refuse(`a CFList is 16 bytes, got ${bytes.length}`);
  const b = Buffer.from(bytes);
  if (b[15] === 0) {
    const frequencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const hz = b.readUIntLE(i * 3, 3) * 100;
      if (hz !== 0) frequencies.push(hz);
    }
    return ok({ type: 0, frequencies });
  }
  if (b[15] === 1) {
    const channels: number[] = [];
    for (let c = 0; c < 72; c++) if (b[c >> 3]! & (1 << (c & 7))) channels.push(c);
    return ok({ type: 1, channels });
  }
  return refuse(`CFListType ${b[15]} is not 0 (frequencies) or 1 (channel mask)`);
}

/** A type-0 CFList of frequencies known to be valid (the plan tables'). */
export function cfListOf(frequencies: readonly number[]): Buffer {
  const r = encodeCfListFrequencies(frequencies);
  if (!r.ok) throw new Error(r.reason);
  return r.value;
}
