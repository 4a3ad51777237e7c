// The JSON bodies of the Semtech packet-forwarder protocol (Lora-net/packet_forwarder PROTOCOL.TXT §4, §6): the
// radio packets a gateway heard (rxpk), its status (stat) and the packets it is to send (txpk), checked field by
// field so a bad one is refused with the reason.
import { ok, refuse, type Result } from "./result.js";

/** Largest LoRa PHYPayload a concentrator sends or receives (the radio's 8-bit length field). */
export const MAX_RADIO_PAYLOAD_BYTES = 255;

/** One radio packet a gateway heard (`rxpk`, §4). Frequencies in MHz, times in µs (tmst) or ms (tmms). */
export interface RxPacket {
  /** UTC time of reception, ISO 8601, when the gateway has a clock source. */
  time?: string;
  /** GPS time of reception in ms since the GPS epoch, when the gateway has GPS. */
  tmms?: number;
  /** The concentrator's free-running 32-bit µs counter at the end of reception; downlinks are timed on it. */
  tmst: number;
  /** Centre frequency in MHz (Hz precision). */
  freq: number;
  /** Concentrator IF channel. */
  chan?: number;
  /** Concentrator RF chain. */
  rfch?: number;
  /** CRC status: 1 OK, −1 failed, 0 no CRC. LoRaWAN frames always carry a CRC; only 1 is a good frame. */
  stat?: -1 | 0 | 1;
  modu: "LORA" | "FSK";
  /** LoRa data rate as `SF<n>BW<kHz>` (`SF7BW125`), or the FSK bit rate in bit/s. */
  datr: string | number;
  /** LoRa coding rate (`4/5`). */
  codr?: string;
  /** Received signal strength in dBm. */
  rssi: number;
  /** LoRa signal-to-noise ratio in dB (absent for FSK). */
  lsnr?: number;
  /** Payload size in bytes (always equal to `data.length`). */
  size: number;
  /** The PHYPayload (decoded from base64). */
  data: Buffer;
}

/** A gateway status report (`stat`, §4): position and the counters since the previous report. */
export interface GatewayStat {
  time?: string;
  lati?: number;
  long?: number;
  alti?: number;
  rxnb?: number;
  rxok?: number;
  rxfw?: number;
  /** Percentage of upstream datagrams that were acknowledged. */
  ackr?: number;
  dwnb?: number;
  txnb?: number;
  /** Concentrator temperature in °C (newer forwarders). */
  temp?: number;
}

/** A radio packet for the gateway to send (`txpk`, §6). Give one timing: `imme`, `tmst` (µs), `tmms` or `time`. */
export interface TxPacket {
  imme?: boolean;
  tmst?: number;
  tmms?: number;
  time?: string;
  /** Centre frequency in MHz (Hz precision). */
  freq: number;
  rfch: number;
  /** Output power in dBm. */
  powe: number;
  modu: "LORA" | "FSK";
  datr: string | number;
  codr?: string;
  /** FSK frequency deviation in Hz. */
  fdev?: number;
  /** LoRa polarisation inversion: true for LoRaWAN downlinks, so other devices do not hear them. */
  ipol?: boolean;
  /** Preamble length in symbols. */
  prea?: number;
  /** Disables the physical-layer CRC (LoRaWAN downlinks have none). */
  ncrc?: boolean;
  /** The PHYPayload; `size` is written from its length. */
  data: Buffer;
}

/** The `error` values of a TX_ACK (§6); a gateway may send others, which are kept as they are. */
export type TxAckError =
  | "NONE"
  | "TOO_LATE"
  | "TOO_EARLY"
  | "COLLISION_PACKET"
  | "COLLISION_BEACON"
  | "TX_FREQ"
  | "TX_POWER"
  | "GPS_UNLOCKED"
  | (string & {});

/** The downlink feedback of a TX_ACK: `NONE` when scheduled; newer forwarders add a warning (power reduced). */
export interface TxAck {
  error: TxAckError;
  warn?: string;
  /** The value the warning is about (the power actually used, in dBm, for `TX_POWER`). */
  value?: number;
}

const LORA_DATR = /^SF([5-9]|1[0-2])BW(125|250|500)$/;

/** Parses a LoRa `datr` (`SF7BW125`): spreading factor 5..12 and bandwidth 125, 250 or 500 kHz. */
export function parseLoraDatr(datr: string): Result<{ sf: number; bwKHz: number }> {
  const m = LORA_DATR.exec(datr);
  if (!m) return refuse(`datr "${datr}" is not a LoRa data rate like SF7BW125`);
  return ok({ sf: Number(m[1]), bwKHz: Number(m[2]) });
}

/** Decodes strict base64 (standard alphabet, padding optional), refusing what Node's lenient decoder would skip. */
export function decodeBase64(text: string): Result<Buffer> {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return refuse("data is not base64");
  const bare = text.replace(/=+$/, "");
  if (bare.length % 4 === 1 || (bare.length !== text.length && text.length % 4 !== 0))
    return refuse("data has a base64 length no bytes can have");
  return ok(Buffer.from(bare, "base64"));
}

/** A JSON object (not null, not an array). */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/** An integer in 0..max (default the largest safe integer). */
export const isUint = (v: unknown, max = Number.MAX_SAFE_INTEGER): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= max;
/** A number that is neither NaN nor infinite. */
export const isFiniteNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function checkDatr(modu: unknown, datr: unknown): string | undefined {
  if (modu === "LORA") {
    if (typeof datr !== "string") return "datr of a LORA packet must be a string like SF7BW125";
    const d = parseLoraDatr(datr);
    return d.ok ? undefined : d.reason;
  }
  if (modu === "FSK") return isUint(datr) && datr > 0 ? undefined : "datr of an FSK packet must be the bit rate";
  return `modu ${JSON.stringify(modu)} must be "LORA" or "FSK"`;
}

function checkData(data: unknown, size: unknown): Result<Buffer> {
  if (typeof data !== "string") return refuse("data must be a base64 string");
  const bytes = decodeBase64(data);
  if (!bytes.ok) return bytes;
  if (bytes.value.length === 0) return refuse("data is empty");
  if (bytes.value.length > MAX_RADIO_PAYLOAD_BYTES)
    return refuse(`data is ${bytes.value.length} bytes, more than a radio packet (${MAX_RADIO_PAYLOAD_BYTES})`);
  if (size !== undefined && size !== bytes.value.length)
    return refuse(`size ${JSON.stringify(size)} differs from the ${bytes.value.length} bytes of data`);
  return bytes;
}

/** The strongest antenna of a multi-antenna report (`rsig`, sent instead of top-level rssi/lsnr by some). */
function bestRsig(rsig: unknown): { rssi: number; lsnr?: number } | undefined {
  if (!Array.isArray(rsig)) return undefined;
  let best: { rssi: number; lsnr?: number } | undefined;
  for (const s of rsig) {
    if (!isRecord(s) || !isFiniteNumber(s.rssic)) continue;
    const lsnr = isFiniteNumber(s.lsnr) ? s.lsnr : undefined;
    if (!best || (lsnr ?? -Infinity) > (best.lsnr ?? -Infinity)) best = { rssi: s.rssic, lsnr };
  }
  return best;
}

/** One rxpk of a PUSH_DATA, checked field by field (data, tmst, freq, modu/datr, signal, stat, …). */
export function decodeRxPacket(raw: unknown): Result<RxPacket> {
  if (!isRecord(raw)) return refuse("must be a JSON object");
  const data = checkData(raw.data, raw.size);
  if (!data.ok) return data;
  if (!isUint(raw.tmst, 0xffffffff)) return refuse("tmst must be an unsigned 32-bit integer (µs)");
  if (!isFiniteNumber(raw.freq) || raw.freq <= 0) return refuse("freq must be a positive number of MHz");
  const datrProblem = checkDatr(raw.modu, raw.datr);
  if (datrProblem) return refuse(datrProblem);
  const signal = isFiniteNumber(raw.rssi)
    ? { rssi: raw.rssi, lsnr: isFiniteNumber(raw.lsnr) ? raw.lsnr : undefined }
    : bestRsig(raw.rsig);
  if (!signal) return refuse("rssi must be a number of dBm");
  if (raw.lsnr !== undefined && !isFiniteNumber(raw.lsnr)) return refuse("lsnr must be a number of dB");
  if (raw.stat !== undefined && raw.stat !== 1 && raw.stat !== 0 && raw.stat !== -1)
    return refuse("stat must be 1, 0 or -1");
  for (const k of ["chan", "rfch"] as const)
    if (raw[k] !== undefined && !isUint(raw[k], 0xff)) return refuse(`${k} must be a small unsigned integer`);
  if (raw.tmms !== undefined && !isUint(raw.tmms)) return refuse("tmms must be an unsigned integer (ms)");
  if (raw.time !== undefined && typeof raw.time !== "string") return refuse("time must be a string");
  if (raw.codr !== undefined && typeof raw.codr !== "string") return refuse("codr must be a string like 4/5");
  const rx: RxPacket = {
    tmst: raw.tmst,
    freq: raw.freq,
    modu: raw.modu as RxPacket["modu"],
    datr: raw.datr as string | number,
    rssi: signal.rssi,
    size: data.value.length,
    data: data.value,
  };
  if (raw.time !== undefined) rx.time = raw.time;
  if (raw.tmms !== undefined) rx.tmms = raw.tmms;
  if (raw.chan !== undefined) rx.chan = raw.chan as number;
  if (raw.rfch !== undefined) rx.rfch = raw.rfch as number;
  if (raw.stat !== undefined) rx.stat = raw.stat;
  if (raw.codr !== undefined) rx.codr = raw.codr;
  if (signal.lsnr !== undefined) rx.lsnr = signal.lsnr;
  return ok(rx);
}

const STAT_NUMBERS = ["lati", "long", "alti", "rxnb", "rxok", "rxfw", "ackr", "dwnb", "txnb", "temp"] as const;

/** The stat of a PUSH_DATA: every known member present must have its type. */
export function decodeGatewayStat(raw: unknown): Result<GatewayStat> {
  if (!isRecord(raw)) return refuse("must be a JSON object");
  const stat: GatewayStat = {};
  if (raw.time !== undefined) {
    if (typeof raw.time !== "string") return refuse("time must be a string");
    stat.time = raw.time;
  }
  for (const k of STAT_NUMBERS) {
    const v = raw[k];
    if (v === undefined) continue;
    if (!isFiniteNumber(v)) return refuse(`${k} must be a number`);
    stat[k] = v;
  }
  return ok(stat);
}

/** The txpk of a PULL_RESP, as a gateway (or a simulated one) reads it. */
export function decodeTxPacket(raw: unknown): Result<TxPacket> {
  if (!isRecord(raw)) return refuse("must be a JSON object");
  const data = checkData(raw.data, raw.size);
  if (!data.ok) return data;
  const problem = txPacketProblem({ ...raw, data: data.value } as unknown as TxPacket);
  if (problem) return refuse(problem);
  const tx = { data: data.value } as TxPacket;
  for (const k of TXPK_KEYS)
    if (k !== "data" && raw[k] !== undefined) (tx as unknown as Record<string, unknown>)[k] = raw[k];
  return ok(tx);
}

const TXPK_KEYS = [
  "imme",
  "tmst",
  "tmms",
  "time",
  "freq",
  "rfch",
  "powe",
  "modu",
  "datr",
  "codr",
  "fdev",
  "ipol",
  "prea",
  "data",
  "ncrc",
] as const;

/** Why a txpk cannot be sent (no timing, bad data rate, power, data size, …), or undefined when it can. */
export function txPacketProblem(tx: TxPacket): string | undefined {
  if (tx.imme !== undefined && typeof tx.imme !== "boolean") return "imme must be a boolean";
  if (tx.imme !== true && tx.tmst === undefined && tx.tmms === undefined && tx.time === undefined)
    return "a txpk needs a timing: imme, tmst, tmms or time";
  if (tx.tmst !== undefined && !isUint(tx.tmst, 0xffffffff)) return "tmst must be an unsigned 32-bit integer (µs)";
  if (tx.tmms !== undefined && !isUint(tx.tmms)) return "tmms must be an unsigned integer (ms)";
  if (tx.time !== undefined && typeof tx.time !== "string") return "time must be a string";
  if (!isFiniteNumber(tx.freq) || tx.freq <= 0) return "freq must be a positive number of MHz";
  if (!isUint(tx.rfch, 0xff)) return "rfch must be a small unsigned integer";
  if (typeof tx.powe !== "number" || !Number.isInteger(tx.powe)) return "powe must be an integer number of dBm";
  const datrProblem = checkDatr(tx.modu, tx.datr);
  if (datrProblem) return datrProblem;
  if (tx.codr !== undefined && typeof tx.codr !== "string") return "codr must be a string like 4/5";
  if (tx.fdev !== undefined && !isUint(tx.fdev)) return "fdev must be an unsigned integer (Hz)";
  if (tx.prea !== undefined && !isUint(tx.prea, 0xffff)) return "prea must be an unsigned integer (symbols)";
  for (const k of ["ipol", "ncrc"] as const)
    if (tx[k] !== undefined && typeof tx[k] !== "boolean") return `${k} must be a boolean`;
  if (!Buffer.isBuffer(tx.data) || tx.data.length === 0 || tx.data.length > MAX_RADIO_PAYLOAD_BYTES)
    return `data must be 1 to ${MAX_RADIO_PAYLOAD_BYTES} bytes`;
  return undefined;
}

/** The JSON object of a txpk, `size` and base64 `data` written from the bytes. */
export function txPacketJson(tx: TxPacket): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of TXPK_KEYS) {
    if (k === "data") {
      out.size = tx.data.length;
      out.data = tx.data.toString("base64");
    } else if (tx[k] !== undefined) out[k] = tx[k];
  }
  return out;
}

/** The JSON object of an rxpk, `size` and base64 `data` written from the bytes. */
export function rxPacketJson(rx: RxPacket): Record<string, unknown> {
  const { data, ...rest } = rx;
  return { ...rest, size: data.length, data: data.toString("base64") };
}

/** Whether the gateway received the packet with a good CRC (`stat` 1); others are noise or collisions. */
export function hasGoodCrc(rx: RxPacket): boolean {
  return rx.stat === undefined || rx.stat === 1;
}

/** A frequency in MHz as the protocol carries it, converted to whole Hz (the unit regional tables use). */
export function mhzToHz(mhz: number): number {
  return Math.round(mhz * 1e6);
}

/** A frequency in Hz as the protocol's MHz number (923300000 → 923.3). */
export function hzToMhz(hz: number): number {
  return hz / 1e6;
}
