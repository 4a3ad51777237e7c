// MAC commands of LoRaWAN 1.0.x (LoRaWAN 1.0.2 §5, 1.0.3 §5.9 for DeviceTime, class B's PingSlotInfo) and 1.1
// (§5: ResetInd, RekeyInd, ADRParamSetup, ForceRejoin, RejoinParamSetup): the byte codec for both directions, as
// carried in FOpts or in an FPort 0 FRMPayload. A command's length follows from its CID and direction, so an
// unknown CID ends parsing: what follows it cannot be delimited and is reported as skipped.
import { ok, refuse, type Result } from "../codec/result.js";

/** MAC commands a device sends (uplink). */
export type UplinkMacCommand =
  | { type: "LinkCheckReq" }
  | { type: "LinkADRAns"; powerAck: boolean; dataRateAck: boolean; channelMaskAck: boolean }
  | { type: "DutyCycleAns" }
  | { type: "RXParamSetupAns"; rx1DrOffsetAck: boolean; rx2DataRateAck: boolean; channelAck: boolean }
  /** battery: 0 external power, 1..254 level, 255 unknown; margin: SNR of the last downlink in dB, −32..31. */
  | { type: "DevStatusAns"; battery: number; margin: number }
  | { type: "NewChannelAns"; dataRateRangeOk: boolean; channelFrequencyOk: boolean }
  | { type: "RXTimingSetupAns" }
  | { type: "TxParamSetupAns" }
  | { type: "DlChannelAns"; uplinkFrequencyExists: boolean; channelFrequencyOk: boolean }
  | { type: "DeviceTimeReq" }
  /** Class B: the device's ping-slot periodicity (bits 2..0 of the byte; bit 3 is RFU and read along). */
  | { type: "PingSlotInfoReq"; periodicity: number }
  /** LoRaWAN 1.1: minor: the device's LoRaWAN minor version (1 for 1.1). */
  | { type: "ResetInd"; minor: number }
  | { type: "RekeyInd"; minor: number }
  | { type: "ADRParamSetupAns" }
  | { type: "RejoinParamSetupAns"; timeOk: boolean };

/** MAC commands the network sends (downlink). Frequencies in Hz (multiples of 100), data rates as DR indexes. */
export type DownlinkMacCommand =
  /** margin: dB above the demodulation floor of the best gateway (0..254); gatewayCount: gateways that heard it. */
  | { type: "LinkCheckAns"; margin: number; gatewayCount: number }
  /** channelMask: bit n enables channel n of the block chosen by channelMaskControl; nbTrans 0 keeps the value. */
  | {
      type: "LinkADRReq";
      dataRate: number;
      txPower: number;
      channelMask: number;
      channelMaskControl: number;
      nbTrans: number;
    }
  /** The device's aggregated duty cycle becomes 1 / 2^maxDutyCycle. */
  | { type: "DutyCycleReq"; maxDutyCycle: number }
  | { type: "RXParamSetupReq"; rx1DrOffset: number; rx2DataRate: number; frequency: number }
  | { type: "DevStatusReq" }
  | { type: "NewChannelReq"; channelIndex: number; frequency: number; minDataRate: number; maxDataRate: number }
  /** delay: RX1 delay in s (0 means 1). */
  | { type: "RXTimingSetupReq"; delay: number }
  | { type: "DlChannelReq"; channelIndex: number; frequency: number }
  /** gpsSeconds since the GPS epoch and fraction in 1/256 s. */
  | { type: "DeviceTimeAns"; gpsSeconds: number; fraction: number }
  | { type: "PingSlotInfoAns" }
  /** LoRaWAN 1.1: the version the network serves the device at (minor 1: 1.1). */
  | { type: "ResetConf"; minor: number }
  | { type: "RekeyConf"; minor: number }
  /** ADR_ACK_LIMIT = 2^limitExp, ADR_ACK_DELAY = 2^delayExp (each 0..15). */
  | { type: "ADRParamSetupReq"; limitExp: number; delayExp: number }
  /** The device sends a Rejoin-Request of rejoinType (0 or 2) at dataRate; period and maxRetries coded as §5.13. */
  | { type: "ForceRejoinReq"; period: number; maxRetries: number; rejoinType: number; dataRate: number }
  /** A type 0 Rejoin-Request every 2^(maxCountN+4) uplinks or 2^(maxTimeN+10) s (each 0..15). */
  | { type: "RejoinParamSetupReq"; maxTimeN: number; maxCountN: number };

/** The commands read, and the bytes that could not be (an unknown CID or a truncated command) with why. */
export interface DecodedMacCommands<C> {
  commands: C[];
  skipped?: { offset: number; bytes: Buffer; reason: string };
}

interface Spec<C> {
  cid: number;
  length: number;
  decode(b: Buffer): C;
  encode(c: C): Result<Buffer>;
}

const bit = (v: number, n: number) => (v & (1 << n)) !== 0;
const inRange = (v: number, lo: number, hi: number) => Number.isInteger(v) && v >= lo && v <= hi;
const freqBytes = (hz: number): Result<Buffer> => {
  if (!Number.isInteger(hz) || hz < 0 || hz % 100 !== 0 || hz / 100 > 0xffffff)
    return refuse(`frequency ${hz} Hz must be a multiple of 100 Hz below 1677.7216 MHz`);
  const b = Buffer.alloc(3);
  b.writeUIntLE(hz / 100, 0, 3);
  return ok(b);
};
const none = <C>(type: string, cid: number): Spec<C> => ({
  cid,
  length: 0,
  decode: () => ({ type }) as C,
  encode: () => ok(Buffer.alloc(0)),
});
const flags = (...values: boolean[]) => Buffer.from([values.reduce((acc, v, i) => acc | (v ? 1 << i : 0), 0)]);

/** A one-byte command of two 4-bit fields, `hi` in bits 7..4 and `lo` in bits 3..0 (`hi` absent: bits 7..4 RFU). */
function nibbles<C>(type: string, cid: number, lo: string, hi?: string): Spec<C> {
  return {
    cid,
    length: 1,
    decode: (b) => ({ type, [lo]: b[0]! & 0x0f, ...(hi ? { [hi]: b[0]! >> 4 } : {}) }) as C,
    encode: (c) => {
      const v = c as Record<string, number>;
      for (const f of hi ? [lo, hi] : [lo]) if (!inRange(v[f]!, 0, 15)) return refuse(`${f} ${v[f]} must be 0..15`);
      return ok(Buffer.from([((hi ? v[hi]! : 0) << 4) | v[lo]!]));
    },
  };
}

type Up<T extends UplinkMacCommand["type"]> = Extract<UplinkMacCommand, { type: T }>;
type Down<T extends DownlinkMacCommand["type"]> = Extract<DownlinkMacCommand, { type: T }>;

const UPLINK: Record<UplinkMacCommand["type"], Spec<UplinkMacCommand>> = {
  LinkCheckReq: none("LinkCheckReq", 0x02),
  LinkADRAns: {
    cid: 0x03,
    length: 1,
    decode: (b) => ({
      type: "LinkADRAns",
      powerAck: bit(b[0]!, 2),
      dataRateAck: bit(b[0]!, 1),
      channelMaskAck: bit(b[0]!, 0),
    }),
    encode: (c) => {
      const a = c as Up<"LinkADRAns">;
      return ok(flags(a.channelMaskAck, a.dataRateAck, a.powerAck));
    },
  },
  DutyCycleAns: none("DutyCycleAns", 0x04),
  RXParamSetupAns: {
    cid: 0x05,
    length: 1,
    decode: (b) => ({
      type: "RXParamSetupAns",
      rx1DrOffsetAck: bit(b[0]!, 2),
      rx2DataRateAck: bit(b[0]!, 1),
      channelAck: bit(b[0]!, 0),
    }),
    encode: (c) => {
      const a = c as Up<"RXParamSetupAns">;
      return ok(flags(a.channelAck, a.rx2DataRateAck, a.rx1DrOffsetAck));
    },
  },
  DevStatusAns: {
    cid: 0x06,
    length: 2,
    decode: (b) => ({ type: "DevStatusAns", battery: b[0]!, margin: ((b[1]! & 0x3f) << 26) >> 26 }),
    encode: (c) => {
      const a = c as Up<"DevStatusAns">;
      if (!inRange(a.battery, 0, 255)) return refuse(`battery ${a.battery} must be 0..255`);
      if (!inRange(a.margin, -32, 31)) return refuse(`margin ${a.margin} must be -32..31 dB`);
      return ok(Buffer.from([a.battery, a.margin & 0x3f]));
    },
  },
  NewChannelAns: {
    cid: 0x07,
    length: 1,
    decode: (b) => ({ type: "NewChannelAns", dataRateRangeOk: bit(b[0]!, 1), channelFrequencyOk: bit(b[0]!, 0) }),
    encode: (c) => {
      const a = c as Up<"NewChannelAns">;
      return ok(flags(a.channelFrequencyOk, a.dataRateRangeOk));
    },
  },
  RXTimingSetupAns: none("RXTimingSetupAns", 0x08),
  TxParamSetupAns: none("TxParamSetupAns", 0x09),
  DlChannelAns: {
    cid: 0x0a,
    length: 1,
    decode: (b) => ({ type: "DlChannelAns", uplinkFrequencyExists: bit(b[0]!, 1), channelFrequencyOk: bit(b[0]!, 0) }),
    encode: (c) => {
      const a = c as Up<"DlChannelAns">;
      return ok(flags(a.channelFrequencyOk, a.uplinkFrequencyExists));
    },
  },
  DeviceTimeReq: none("DeviceTimeReq", 0x0d),
  PingSlotInfoReq: nibbles("PingSlotInfoReq", 0x10, "periodicity"),
  ResetInd: nibbles("ResetInd", 0x01, "minor"),
  RekeyInd: nibbles("RekeyInd", 0x0b, "minor"),
  ADRParamSetupAns: none("ADRParamSetupAns", 0x0c),
  RejoinParamSetupAns: {
    cid: 0x0f,
    length: 1,
    decode: (b) => ({ type: "RejoinParamSetupAns", timeOk: bit(b[0]!, 0) }),
    encode: (c) => ok(flags((c as Up<"RejoinParamSetupAns">).timeOk)),
  },
};

const DOWNLINK: Record<DownlinkMacCommand["type"], Spec<DownlinkMacCommand>> = {
  LinkCheckAns: {
    cid: 0x02,
    length: 2,
    decode: (b) => ({ type: "LinkCheckAns", margin: b[0]!, gatewayCount: b[1]! }),
    encode: (c) => {
      const a = c as Down<"LinkCheckAns">;
      if (!inRange(a.margin, 0, 254)) return refuse(`margin ${a.margin} must be 0..254 dB`);
      if (!inRange(a.gatewayCount, 0, 255)) return refuse(`gatewayCount ${a.gatewayCount} must be 0..255`);
      return ok(Buffer.from([a.margin, a.gatewayCount]));
    },
  },
  LinkADRReq: {
    cid: 0x03,
    length: 4,
    decode: (b) => ({
      type: "LinkADRReq",
      dataRate: b[0]! >> 4,
      txPower: b[0]! & 0x0f,
      channelMask: b.readUInt16LE(1),
      channelMaskControl: (b[3]! >> 4) & 0x07,
      nbTrans: b[3]! & 0x0f,
    }),
    encode: (c) => {
      const a = c as Down<"LinkADRReq">;
      if (!inRange(a.dataRate, 0, 15)) return refuse(`dataRate ${a.dataRate} must be 0..15`);
      if (!inRange(a.txPower, 0, 15)) return refuse(`txPower ${a.txPower} must be 0..15`);
      if (!inRange(a.channelMask, 0, 0xffff)) return refuse(`channelMask ${a.channelMask} must be 16 bits`);
      if (!inRange(a.channelMaskControl, 0, 7))
        return refuse(`channelMaskControl ${a.channelMaskControl} must be 0..7`);
      if (!inRange(a.nbTrans, 0, 15)) return refuse(`nbTrans ${a.nbTrans} must be 0..15`);
      const b = Buffer.from([(a.dataRate << 4) | a.txPower, 0, 0, (a.channelMaskControl << 4) | a.nbTrans]);
      b.writeUInt16LE(a.channelMask, 1);
      return ok(b);
    },
  },
  DutyCycleReq: {
    cid: 0x04,
    length: 1,
    decode: (b) => ({ type: "DutyCycleReq", maxDutyCycle: b[0]! & 0x0f }),
    encode: (c) => {
      const a = c as Down<"DutyCycleReq">;
      return inRange(a.maxDutyCycle, 0, 15)
        ? ok(Buffer.from([a.maxDutyCycle]))
        : refuse(`maxDutyCycle ${a.maxDutyCycle} must be 0..15`);
    },
  },
  RXParamSetupReq: {
    cid: 0x05,
    length: 4,
    decode: (b) => ({
      type: "RXParamSetupReq",
      rx1DrOffset: (b[0]! >> 4) & 0x07,
      rx2DataRate: b[0]! & 0x0f,
      frequency: b.readUIntLE(1, 3) * 100,
    }),
    encode: (c) => {
      const a = c as Down<"RXParamSetupReq">;
      if (!inRange(a.rx1DrOffset, 0, 7)) return refuse(`rx1DrOffset ${a.rx1DrOffset} must be 0..7`);
      if (!inRange(a.rx2DataRate, 0, 15)) return refuse(`rx2DataRate ${a.rx2DataRate} must be 0..15`);
      const f = freqBytes(a.frequency);
      return f.ok ? ok(Buffer.concat([Buffer.from([(a.rx1DrOffset << 4) | a.rx2DataRate]), f.value])) : f;
    },
  },
  DevStatusReq: none("DevStatusReq", 0x06),
  NewChannelReq: {
    cid: 0x07,
    length: 5,
    decode: (b) => ({
      type: "NewChannelReq",
      channelIndex: b[0]!,
      frequency: b.readUIntLE(1, 3) * 100,
      minDataRate: b[4]! & 0x0f,
      maxDataRate: b[4]! >> 4,
    }),
    encode: (c) => {
      const a = c as Down<"NewChannelReq">;
      if (!inRange(a.channelIndex, 0, 255)) return refuse(`channelIndex ${a.channelIndex} must be 0..255`);
      if (!inRange(a.minDataRate, 0, 15) || !inRange(a.maxDataRate, 0, 15))
        return refuse("minDataRate and maxDataRate must be 0..15");
      const f = freqBytes(a.frequency);
      if (!f.ok) return f;
      return ok(
        Buffer.concat([Buffer.from([a.channelIndex]), f.value, Buffer.from([(a.maxDataRate << 4) | a.minDataRate])]),
      );
    },
  },
  RXTimingSetupReq: {
    cid: 0x08,
    length: 1,
    decode: (b) => ({ type: "RXTimingSetupReq", delay: b[0]! & 0x0f }),
    encode: (c) => {
      const a = c as Down<"RXTimingSetupReq">;
      return inRange(a.delay, 0, 15) ? ok(Buffer.from([a.delay])) : refuse(`delay ${a.delay} must be 0..15 s`);
    },
  },
  DlChannelReq: {
    cid: 0x0a,
    length: 4,
    decode: (b) => ({ type: "DlChannelReq", channelIndex: b[0]!, frequency: b.readUIntLE(1, 3) * 100 }),
    encode: (c) => {
      const a = c as Down<"DlChannelReq">;
      if (!inRange(a.channelIndex, 0, 255)) return refuse(`channelIndex ${a.channelIndex} must be 0..255`);
      const f = freqBytes(a.frequency);
      return f.ok ? ok(Buffer.concat([Buffer.from([a.channelIndex]), f.value])) : f;
    },
  },
  DeviceTimeAns: {
    cid: 0x0d,
    length: 5,
    decode: (b) => ({ type: "DeviceTimeAns", gpsSeconds: b.readUInt32LE(0), fraction: b[4]! }),
    encode: (c) => {
      const a = c as Down<"DeviceTimeAns">;
      if (!inRange(a.gpsSeconds, 0, 0xffffffff)) return refuse(`gpsSeconds ${a.gpsSeconds} must be 32 bits`);
      if (!inRange(a.fraction, 0, 255)) return refuse(`fraction ${a.fraction} must be 0..255`);
      const b = Buffer.alloc(5);
      b.writeUInt32LE(a.gpsSeconds, 0);
      b[4] = a.fraction;
      return ok(b);
    },
  },
  PingSlotInfoAns: none("PingSlotInfoAns", 0x10),
  ResetConf: nibbles("ResetConf", 0x01, "minor"),
  RekeyConf: nibbles("RekeyConf", 0x0b, "minor"),
  ADRParamSetupReq: nibbles("ADRParamSetupReq", 0x0c, "delayExp", "limitExp"),
  ForceRejoinReq: {
    cid: 0x0e,
    length: 2,
    decode: (b) => {
      const v = b.readUInt16LE(0);
      return {
        type: "ForceRejoinReq",
        period: (v >> 11) & 7,
        maxRetries: (v >> 8) & 7,
        rejoinType: (v >> 4) & 7,
        dataRate: v & 15,
      };
    },
    encode: (c) => {
      const a = c as Down<"ForceRejoinReq">;
      if (![a.period, a.maxRetries].every((v) => inRange(v, 0, 7))) return refuse("period and maxRetries must be 0..7");
      if (a.rejoinType !== 0 && a.rejoinType !== 2) return refuse(`rejoinType ${a.rejoinType} must be 0 or 2`);
      if (!inRange(a.dataRate, 0, 15)) return refuse(`dataRate ${a.dataRate} must be 0..15`);
      const b = Buffer.alloc(2);
      b.writeUInt16LE((a.period << 11) | (a.maxRetries << 8) | (a.rejoinType << 4) | a.dataRate, 0);
      return ok(b);
    },
  },
  RejoinParamSetupReq: nibbles("RejoinParamSetupReq", 0x0f, "maxCountN", "maxTimeN"),
};

const byCid = <C>(table: Record<string, Spec<C>>) => new Map(Object.values(table).map((s) => [s.cid, s]));
const UPLINK_BY_CID = byCid(UPLINK);
const DOWNLINK_BY_CID = byCid(DOWNLINK);

function decodeWith<C>(bytes: Uint8Array, specs: Map<number, Spec<C>>, direction: string): DecodedMacCommands<C> {
  const buf = Buffer.from(bytes);
  const commands: C[] = [];
  let i = 0;
  while (i < buf.length) {
    const spec = specs.get(buf[i]!);
    const rest = () => Buffer.from(buf.subarray(i));
    if (!spec) {
      const cid = `0x${buf[i]!.toString(16).padStart(2, "0")}`;
      return { commands, skipped: { offset: i, bytes: rest(), reason: `unknown ${direction} MAC command CID ${cid}` } };
    }
    if (i + 1 + spec.length > buf.length) {
      const reason = `MAC command CID 0x${spec.cid.toString(16).padStart(2, "0")} needs ${spec.length} bytes`;
      return { commands, skipped: { offset: i, bytes: rest(), reason: `${reason}, ${buf.length - i - 1} left` } };
    }
    commands.push(spec.decode(buf.subarray(i + 1, i + 1 + spec.length)));
    i += 1 + spec.length;
  }
  return { commands };
}

function encodeWith<C extends { type: string }>(
  commands: readonly C[],
  table: Record<string, Spec<C>>,
): Result<Buffer> {
  const parts: Buffer[] = [];
  for (const c of commands) {
    const spec = table[c.type];
    if (!spec) return refuse(`${String(c.type)} is not a MAC command of this direction`);
    const payload = spec.encode(c);
    if (!payload.ok) return refuse(`${c.type}: ${payload.reason}`);
    parts.push(Buffer.from([spec.cid]), payload.value);
  }
  return ok(Buffer.concat(parts));
}

/** Reads the MAC commands of an uplink (FOpts or FPort 0 payload); an unknown CID stops parsing and is reported. */
export function decodeUplinkMacCommands(bytes: Uint8Array): DecodedMacCommands<UplinkMacCommand> {
  return decodeWith(bytes, UPLINK_BY_CID, "uplink");
}

/** Writes MAC commands a device sends (for simulated devices); refuses values out of their field's range. */
export function encodeUplinkMacCommands(commands: readonly UplinkMacCommand[]): Result<Buffer> {
  return encodeWith(commands, UPLINK);
}

/** Reads the MAC commands of a downlink (for simulated devices); an unknown CID stops parsing and is reported. */
export function decodeDownlinkMacCommands(bytes: Uint8Array): DecodedMacCommands<DownlinkMacCommand> {
  return decodeWith(bytes, DOWNLINK_BY_CID, "downlink");
}

/**
 * Writes MAC commands for a downlink; refuses values out of their field's range. At most 15 bytes fit FOpts;
 * more go in an FPort 0 payload (without application data).
 */
export function encodeDownlinkMacCommands(commands: readonly DownlinkMacCommand[]): Result<Buffer> {
  return encodeWith(commands, DOWNLINK);
}

export { DEMODULATION_FLOOR_DB, linkMargin } from "./link-margin.js";
