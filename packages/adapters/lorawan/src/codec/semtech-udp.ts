// The Semtech UDP packet-forwarder protocol ("GWMP"), versions 1 and 2, as Lora-net/packet_forwarder PROTOCOL.TXT
// describes it: a 4-byte header (version, token, identifier), the gateway EUI on gateway → server packets, and
// JSON bodies (rxpk/stat up, txpk down, txpk_ack for the downlink feedback added in version 2).
import { ok, refuse, type Result } from "./result.js";

/** Protocol versions spoken: 1 (original) and 2 (adds TX_ACK and a real token on PULL_RESP). */
export type SemtechVersion = 1 | 2;

/** Identifier byte (offset 3) of each packet type (PROTOCOL.TXT §3.2–5.5). */
export const SEMTECH_IDENTIFIER = {
  PUSH_DATA: 0x00,
  PUSH_ACK: 0x01,
  PULL_DATA: 0x02,
  PULL_RESP: 0x03,
  PULL_ACK: 0x04,
  TX_ACK: 0x05,
} as const;

/** The six packet types of the protocol. */
export type SemtechPacketType = keyof typeof SEMTECH_IDENTIFIER;

/** Largest datagram accepted by default: the largest UDP payload over IPv4 (65,535 − 8 − 20 bytes). */
export const MAX_SEMTECH_DATAGRAM_BYTES = 65_507;

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

/** A part of a PUSH_DATA that was left out (an rxpk or the stat) and why; the rest of the datagram is kept. */
export interface IgnoredPart {
  part: string;
  reason: string;
}

interface Header {
  version: SemtechVersion;
  /** The 16-bit token that pairs a packet with its acknowledgement (0..65535). */
  token: number;
}

/** A decoded datagram; gateway EUIs are 16 lower-case hex digits. */
export type SemtechPacket =
  | (Header & {
      type: "PUSH_DATA";
      gatewayEui: string;
      rxpk: RxPacket[];
      stat?: GatewayStat;
      ignored: IgnoredPart[];
    })
  | (Header & { type: "PUSH_ACK" })
  | (Header & { type: "PULL_DATA"; gatewayEui: string })
  | (Header & { type: "PULL_ACK" })
  | (Header & { type: "PULL_RESP"; txpk: TxPacket })
  | (Header & { type: "TX_ACK"; gatewayEui: string; ack: TxAck });

/** Options of {@link decodeSemtechPacket}. */
export interface DecodeOptions {
  /** Datagrams longer than this are refused unread (default {@link MAX_SEMTECH_DATAGRAM_BYTES}). */
  maxBytes?: number;
}

const TYPE_BY_IDENTIFIER: readonly SemtechPacketType[] = [
  "PUSH_DATA",
  "PUSH_ACK",
  "PULL_DATA",
  "PULL_RESP",
  "PULL_ACK",
  "TX_ACK",
];

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

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isUint = (v: unknown, max = Number.MAX_SAFE_INTEGER): v is number =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= max;
const isFiniteNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function euiAt(bytes: Uint8Array, offset: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + offset, 8).toString("hex");
}

/** The JSON object after `offset`, tolerating trailing NUL bytes and whitespace that some forwarders append. */
function jsonAt(bytes: Uint8Array, offset: number, what: string): Result<Record<string, unknown>> {
  let end = bytes.length;
  while (end > offset && (bytes[end - 1] === 0 || bytes[end - 1] === 0x20 || bytes[end - 1] === 0x0a)) end--;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset + offset, end - offset).toString("utf8");
  if (!text.startsWith("{")) return refuse(`${what} body must be a JSON object`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return refuse(`${what} body is not valid JSON: ${(e as Error).message}`);
  }
  if (!isRecord(parsed)) return refuse(`${what} body must be a JSON object`);
  return ok(parsed);
}

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

function decodeRxpk(raw: unknown): Result<RxPacket> {
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

function decodeStat(raw: unknown): Result<GatewayStat> {
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

function decodePushData(header: Header, bytes: Uint8Array): Result<SemtechPacket> {
  if (bytes.length < 12) return refuse(`PUSH_DATA of ${bytes.length} bytes is shorter than its 12-byte header`);
  const body = jsonAt(bytes, 12, "PUSH_DATA");
  if (!body.ok) return body;
  const ignored: IgnoredPart[] = [];
  const rxpk: RxPacket[] = [];
  const rawRxpk = body.value.rxpk;
  if (rawRxpk !== undefined && !Array.isArray(rawRxpk)) return refuse("PUSH_DATA rxpk must be an array");
  (rawRxpk ?? []).forEach((raw: unknown, i: number) => {
    const rx = decodeRxpk(raw);
    if (rx.ok) rxpk.push(rx.value);
    else ignored.push({ part: `rxpk[${i}]`, reason: rx.reason });
  });
  const packet: SemtechPacket = { type: "PUSH_DATA", ...header, gatewayEui: euiAt(bytes, 4), rxpk, ignored };
  if (body.value.stat !== undefined) {
    const stat = decodeStat(body.value.stat);
    if (stat.ok) packet.stat = stat.value;
    else ignored.push({ part: "stat", reason: stat.reason });
  }
  return ok(packet);
}

function decodeTxpk(raw: unknown): Result<TxPacket> {
  if (!isRecord(raw)) return refuse("PULL_RESP txpk must be a JSON object");
  const data = checkData(raw.data, raw.size);
  if (!data.ok) return refuse(`PULL_RESP txpk: ${data.reason}`);
  const problem = txpkProblem({ ...raw, data: data.value } as unknown as TxPacket);
  if (problem) return refuse(`PULL_RESP txpk: ${problem}`);
  const tx = { data: data.value } as TxPacket;
  for (const k of TXPK_KEYS)
    if (k !== "data" && raw[k] !== undefined) (tx as unknown as Record<string, unknown>)[k] = raw[k];
  return ok(tx);
}

function decodeTxAck(header: Header, bytes: Uint8Array): Result<SemtechPacket> {
  if (bytes.length < 12) return refuse(`TX_ACK of ${bytes.length} bytes is shorter than its 12-byte header`);
  const gatewayEui = euiAt(bytes, 4);
  const rest = bytes.subarray(12);
  if (rest.every((b) => b === 0 || b === 0x20 || b === 0x0a))
    return ok({ type: "TX_ACK", ...header, gatewayEui, ack: { error: "NONE" } });
  const body = jsonAt(bytes, 12, "TX_ACK");
  if (!body.ok) return body;
  const a = body.value.txpk_ack;
  if (!isRecord(a)) return refuse("TX_ACK body has no txpk_ack object");
  if (a.error !== undefined && typeof a.error !== "string") return refuse("TX_ACK error must be a string");
  if (a.warn !== undefined && typeof a.warn !== "string") return refuse("TX_ACK warn must be a string");
  const ack: TxAck = { error: a.error ?? "NONE" };
  if (a.warn !== undefined) ack.warn = a.warn;
  if (isFiniteNumber(a.value)) ack.value = a.value;
  return ok({ type: "TX_ACK", ...header, gatewayEui, ack });
}

/**
 * Decodes one UDP datagram of the packet-forwarder protocol. Anything malformed — short, unknown version or
 * identifier, bad JSON, a body of the wrong shape — is refused with the reason; nothing throws. In a PUSH_DATA a
 * bad rxpk or stat is left out and listed in `ignored`, and the good rxpks are kept.
 */
export function decodeSemtechPacket(datagram: Uint8Array, options: DecodeOptions = {}): Result<SemtechPacket> {
  const max = options.maxBytes ?? MAX_SEMTECH_DATAGRAM_BYTES;
  if (datagram.length > max) return refuse(`datagram of ${datagram.length} bytes is over the ${max}-byte limit`);
  if (datagram.length < 4) return refuse(`datagram of ${datagram.length} bytes is shorter than the 4-byte header`);
  const version = datagram[0]!;
  if (version !== 1 && version !== 2) return refuse(`protocol version ${version} is not 1 or 2`);
  const type = TYPE_BY_IDENTIFIER[datagram[3]!];
  if (type === undefined) return refuse(`identifier 0x${datagram[3]!.toString(16).padStart(2, "0")} is unknown`);
  const header: Header = { version, token: (datagram[1]! << 8) | datagram[2]! };
  switch (type) {
    case "PUSH_DATA":
      return decodePushData(header, datagram);
    case "PULL_DATA":
      if (datagram.length !== 12) return refuse(`PULL_DATA must be 12 bytes, got ${datagram.length}`);
      return ok({ type, ...header, gatewayEui: euiAt(datagram, 4) });
    case "PUSH_ACK":
    case "PULL_ACK":
      if (datagram.length !== 4) return refuse(`${type} must be 4 bytes, got ${datagram.length}`);
      return ok({ type, ...header });
    case "PULL_RESP": {
      const body = jsonAt(datagram, 4, "PULL_RESP");
      if (!body.ok) return body;
      const txpk = decodeTxpk(body.value.txpk);
      return txpk.ok ? ok({ type, ...header, txpk: txpk.value }) : txpk;
    }
    case "TX_ACK":
      return decodeTxAck(header, datagram);
  }
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

function txpkProblem(tx: TxPacket): string | undefined {
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

function txpkJson(tx: TxPacket): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of TXPK_KEYS) {
    if (k === "data") {
      out.size = tx.data.length;
      out.data = tx.data.toString("base64");
    } else if (tx[k] !== undefined) out[k] = tx[k];
  }
  return out;
}

function rxpkJson(rx: RxPacket): Record<string, unknown> {
  const { data, ...rest } = rx;
  return { ...rest, size: data.length, data: data.toString("base64") };
}

function headerBytes(p: Header, type: SemtechPacketType, eui?: string): Result<Buffer> {
  if (p.version !== 1 && p.version !== 2) return refuse(`protocol version ${String(p.version)} is not 1 or 2`);
  if (!isUint(p.token, 0xffff)) return refuse(`token ${String(p.token)} must be 0..65535`);
  const head = Buffer.from([p.version, p.token >> 8, p.token & 0xff, SEMTECH_IDENTIFIER[type]]);
  if (eui === undefined) return ok(head);
  if (!/^[0-9a-fA-F]{16}$/.test(eui)) return refuse(`gateway EUI "${eui}" must be 16 hex digits`);
  return ok(Buffer.concat([head, Buffer.from(eui, "hex")]));
}

const withJson = (head: Result<Buffer>, json: unknown): Result<Buffer> =>
  head.ok ? ok(Buffer.concat([head.value, Buffer.from(JSON.stringify(json), "utf8")])) : head;

/**
 * Encodes a packet as its datagram: the inverse of {@link decodeSemtechPacket}. Refuses (never throws) a version,
 * token or gateway EUI out of range and a txpk without a timing, with a bad data rate, or with 0 or over 255 bytes.
 * `size` fields are written from the data, so they cannot disagree with it.
 */
export function encodeSemtechPacket(packet: SemtechPacket): Result<Buffer> {
  switch (packet.type) {
    case "PUSH_ACK":
    case "PULL_ACK":
      return headerBytes(packet, packet.type);
    case "PULL_DATA":
      return headerBytes(packet, packet.type, packet.gatewayEui);
    case "PUSH_DATA": {
      const json: Record<string, unknown> = {};
      if (packet.rxpk.length > 0) json.rxpk = packet.rxpk.map(rxpkJson);
      if (packet.stat) json.stat = packet.stat;
      return withJson(headerBytes(packet, packet.type, packet.gatewayEui), json);
    }
    case "PULL_RESP": {
      const problem = txpkProblem(packet.txpk);
      if (problem) return refuse(`PULL_RESP txpk: ${problem}`);
      return withJson(headerBytes(packet, packet.type), { txpk: txpkJson(packet.txpk) });
    }
    case "TX_ACK": {
      const ack: Record<string, unknown> = { error: packet.ack.error };
      if (packet.ack.warn !== undefined) ack.warn = packet.ack.warn;
      if (packet.ack.value !== undefined) ack.value = packet.ack.value;
      return withJson(headerBytes(packet, packet.type, packet.gatewayEui), { txpk_ack: ack });
    }
  }
}

/**
 * The acknowledgement a server owes a gateway packet: PUSH_ACK for PUSH_DATA, PULL_ACK for PULL_DATA, with the
 * same version and token; undefined for the other types, which are not acknowledged.
 */
export function acknowledgementOf(packet: SemtechPacket): Buffer | undefined {
  const id =
    packet.type === "PUSH_DATA"
      ? SEMTECH_IDENTIFIER.PUSH_ACK
      : packet.type === "PULL_DATA"
        ? SEMTECH_IDENTIFIER.PULL_ACK
        : undefined;
  if (id === undefined) return undefined;
  return Buffer.from([packet.version, packet.token >> 8, packet.token & 0xff, id]);
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
