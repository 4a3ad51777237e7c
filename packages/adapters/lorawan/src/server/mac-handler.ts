import type { Logger } from "pino";
import { decodeUplinkMacCommands, DEMODULATION_FLOOR_DB, linkMargin } from "../mac/mac-commands.js";
import type { Region } from "../codec/region.js";
import { pingSlotInfo } from "./class-b.js";
import type { DeviceState } from "./device-state.js";

/** Uplinks whose SNR ADR looks at; a LinkADRReq is considered once this many are known. */
export const ADR_HISTORY = 20;
/** dB kept above the demodulation floor before ADR raises the data rate (ChirpStack and TTN use 10-15). */
const ADR_INSTALLATION_MARGIN_DB = 10;

/** Highest data rate ADR moves a device to, and the lowest TX power index, per region (LoRa 125 kHz rates). */
const ADR_LIMITS: Partial<Record<Region["name"], { maxDr: number; maxTxPower: number }>> = {
  EU868: { maxDr: 5, maxTxPower: 7 },
  CN470: { maxDr: 5, maxTxPower: 7 },
  // The other dynamic plans (RP002-1.0.3 TXPower tables: 0..7 in AS923/KR920/RU864, 0..10 in IN865).
  "AS923-1": { maxDr: 5, maxTxPower: 7 },
  "AS923-2": { maxDr: 5, maxTxPower: 7 },
  "AS923-3": { maxDr: 5, maxTxPower: 7 },
  "AS923-4": { maxDr: 5, maxTxPower: 7 },
  KR920: { maxDr: 5, maxTxPower: 7 },
  IN865: { maxDr: 5, maxTxPower: 10 },
  RU864: { maxDr: 5, maxTxPower: 7 },
};

/** What the device told the network in MAC commands that the service shows: battery and link margin. */
export interface DeviceStatus {
  /** 0 external power, 1..254 level, 255 unknown. */
  battery: number;
  /** SNR of the last downlink the device received, dB. */
  margin: number;
}

/**
 * Reads a device's MAC commands (FOpts or FPort 0) and queues the answers: LinkCheckAns with the best copy's margin
 * and the number of gateways; DeviceTimeAns with the GPS time of the uplink's reception (`gpsMs`); ResetConf and
 * RekeyConf (LoRaWAN 1.1) with the version served; PingSlotInfoAns, keeping the class B periodicity; DevStatusAns
 * and LinkADRAns are recorded. Unknown commands (and everything after them, which cannot be delimited) are logged and
 * skipped. Answers the device status when it reported one.
 */
export function handleMacCommands(
  state: DeviceState,
  bytes: Buffer,
  link: { snr: number; sf: number | undefined; gateways: number; gpsMs: number },
  log: Logger,
): DeviceStatus | undefined {
  if (bytes.length === 0) return undefined;
  const decoded = decodeUplinkMacCommands(bytes);
  let status: DeviceStatus | undefined;
  for (const c of decoded.commands) {
    switch (c.type) {
      case "LinkCheckReq": {
        const margin = link.sf === undefined ? undefined : linkMargin(link.snr, link.sf);
        state.macOut.push({
          type: "LinkCheckAns",
          margin: margin?.ok ? margin.value : 0,
          gatewayCount: Math.min(255, link.gateways),
        });
        break;
      }
      case "DeviceTimeReq":
        state.macOut.push({
          type: "DeviceTimeAns",
          gpsSeconds: Math.floor(link.gpsMs / 1000) >>> 0,
          fraction: Math.floor(((link.gpsMs % 1000) * 256) / 1000),
        });
        break;
      case "ResetInd":
      case "RekeyInd":
        // LoRaWAN 1.1 §5.1, §5.10: confirm the version the network serves the device at (never above its own).
        state.macOut.push({ type: c.type === "ResetInd" ? "ResetConf" : "RekeyConf", minor: Math.min(c.minor, 1) });
        break;
      case "PingSlotInfoReq":
        pingSlotInfo(state, c.periodicity);
        break;
      case "DevStatusAns":
        status = { battery: c.battery, margin: c.margin };
        break;
      case "LinkADRAns":
        state.adrPending = false;
        if (!(c.powerAck && c.dataRateAck && c.channelMaskAck))
          log.info({ deviceId: state.deviceId, answer: c }, "device refused part of a LinkADRReq");
        break;
      default:
        log.debug({ deviceId: state.deviceId, command: c.type }, "MAC command noted");
    }
  }
  if (decoded.skipped)
    log.info(
      { deviceId: state.deviceId, reason: decoded.skipped.reason, bytes: decoded.skipped.bytes.toString("hex") },
      "unknown MAC command skipped",
    );
  return status;
}

/**
 * ADR (LoRaWAN 1.0.2 §4.3.1.1, the network side as Semtech's recommended algorithm): once {@link ADR_HISTORY}
 * uplinks are known, the best SNR above the floor of the current data rate, less the installation margin, is spent
 * in 3 dB steps on a higher data rate, then on lower TX power. Queues a LinkADRReq (all channels on, ChMaskCntl 6)
 * when that changes something. Dynamic plans and CN470 only: in US915/AU915 ChMaskCntl 6 would switch on all 64
 * channels.
 */
export function considerAdr(state: DeviceState, uplinkDr: number, sf: number | undefined): void {
  const limits = ADR_LIMITS[state.region.name];
  if (!limits || sf === undefined || state.adrPending || state.snrHistory.length < ADR_HISTORY) return;
  const floor = DEMODULATION_FLOOR_DB[sf];
  if (floor === undefined) return;
  const best = Math.max(...state.snrHistory);
  let steps = Math.floor((best - floor - ADR_INSTALLATION_MARGIN_DB) / 3);
  let dr = uplinkDr;
  let txPower = 0;
  while (steps > 0 && dr < limits.maxDr) {
    dr++;
    steps--;
  }
  while (steps > 0 && txPower < limits.maxTxPower) {
    txPower++;
    steps--;
  }
  state.snrHistory = [];
  if (dr === uplinkDr && txPower === 0) return;
  state.adrPending = true;
  state.macOut.push({ type: "LinkADRReq", dataRate: dr, txPower, channelMask: 0, channelMaskControl: 6, nbTrans: 1 });
}
