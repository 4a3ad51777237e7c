// The Semtech UDP packet-forwarder protocol ("GWMP"), versions 1 and 2, as Lora-net/packet_forwarder PROTOCOL.TXT
// describes it: a 4-byte header (version, token, identifier), the gateway EUI on gateway → server packets, and
// JSON bodies (rxpk/stat up, txpk down, txpk_ack for the downlink feedback added in version 2).
import {
  decodeGatewayStat,
  decodeRxPacket,
  decodeTxPacket,
  isFiniteNumber,
  isRecord,
  isUint,
  rxPacketJson,
  txPacketJson,
  txPacketProblem,
  type GatewayStat,
  type RxPacket,
  type TxAck,
  type TxPacket,
} from "./radio-packet.js";
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

function decodePushData(header: Header, bytes: Uint8Array): Result<SemtechPacket> {
  if (bytes.length < 12) return refuse(`PUSH_DATA of ${bytes.length} bytes is shorter than its 12-byte header`);
  const body = jsonAt(bytes, 12, "PUSH_DATA");
  if (!body.ok) return body;
  const ignored: IgnoredPart[] = [];
  const rxpk: RxPacket[] = [];
  const rawRxpk = body.value.rxpk;
  if (rawRxpk !== undefined && !Array.isArray(rawRxpk)) return refuse("PUSH_DATA rxpk must be an array");
  (rawRxpk ?? []).forEach((raw: unknown, i: number) => {
    const rx = decodeRxPacket(raw);
    if (rx.ok) rxpk.push(rx.value);
    else ignored.push({ part: `rxpk[${i}]`, reason: rx.reason });
  });
  const packet: SemtechPacket = { type: "PUSH_DATA", ...header, gatewayEui: euiAt(bytes, 4), rxpk, ignored };
  if (body.value.stat !== undefined) {
    const stat = decodeGatewayStat(body.value.stat);
    if (stat.ok) packet.stat = stat.value;
    else ignored.push({ part: "stat", reason: stat.reason });
  }
  return ok(packet);
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
      const txpk = decodeTxPacket(body.value.txpk);
      return txpk.ok ? ok({ type, ...header, txpk: txpk.value }) : refuse(`PULL_RESP txpk: ${txpk.reason}`);
    }
    case "TX_ACK":
      return decodeTxAck(header, datagram);
  }
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
      if (packet.rxpk.length > 0) json.rxpk = packet.rxpk.map(rxPacketJson);
      if (packet.stat) json.stat = packet.stat;
      return withJson(headerBytes(packet, packet.type, packet.gatewayEui), json);
    }
    case "PULL_RESP": {
      const problem = txPacketProblem(packet.txpk);
      if (problem) return refuse(`PULL_RESP txpk: ${problem}`);
      return withJson(headerBytes(packet, packet.type), { txpk: txPacketJson(packet.txpk) });
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
