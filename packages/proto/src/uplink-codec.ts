import { ScalarType, type DescField, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
// protobuf-es's `presence` of proto3 fields without `optional`: zero values are not written.
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import {
  AdapterMessageSchema,
  UplinkBatchSchema,
  UplinkSchema,
  type AdapterMessage,
  type Uplink,
} from "./gen/iot/registry/v1/registry_pb.js";

/**
 * The stream messages that carry uplinks (AdapterMessage with `uplink` or `uplinkBatch`), encoded and decoded by
 * hand: protobuf-es's reflective codec (a zero message per uplink, a TextEncoder copy per string, a chunk list per
 * message) was a fifth of the MQTT adapter's CPU profile and a tenth of the central node's under load.
 *
 * The field table comes from the generated descriptors, so a scalar field added to Uplink later is carried without
 * touching this file; a field this codec cannot handle (a message, list, enum, `optional` or 64-bit-as-string field)
 * turns the fast path off and every message goes through protobuf-es as before. Decoding gives objects equal to
 * `fromBinary`'s; anything unexpected on the wire (an unknown field, another wire type) answers undefined, and the
 * caller decodes with protobuf-es.
 */

/** An Uplink as it goes into a stream message (int64 fields as bigint or number). */
export type UplinkInit = MessageInitShape<typeof UplinkSchema>;

/** AdapterMessage bytes made by `encodeUplinksMessage`, sent as they are by the gRPC serializer. */
export type EncodedAdapterMessage = Uint8Array & { readonly __encoded: "AdapterMessage" };

/** The scalar sorts this codec (and messageEncoder) write themselves. */
export type Kind = "int64" | "uint64" | "int32" | "uint32" | "bool" | "string" | "bytes";

interface Field {
  readonly no: number;
  readonly name: string;
  readonly kind: Kind;
  /** The field's tag byte(s) on the wire, precomputed. */
  readonly tag: readonly number[];
}

/** Each scalar type's sort, for those written by hand. */
export const KINDS: Partial<Record<ScalarType, Kind>> = {
  [ScalarType.INT64]: "int64",
  [ScalarType.UINT64]: "uint64",
  [ScalarType.INT32]: "int32",
  [ScalarType.UINT32]: "uint32",
  [ScalarType.BOOL]: "bool",
  [ScalarType.STRING]: "string",
  [ScalarType.BYTES]: "bytes",
};

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Wire type of a length-delimited field (strings, bytes, messages). */
const LEN = 2;

/** The fields of `schema` this codec can carry, or undefined when one of them is of another sort. */
function fieldTable(schema: DescMessage): Field[] | undefined {
  const fields: Field[] = [];
  for (const f of schema.fields as readonly DescField[]) {
    if (
      f.fieldKind !== "scalar" ||
      f.oneof !== undefined ||
      f.presence !== FeatureSet_FieldPresence.IMPLICIT ||
      f.longAsString
    )
      return;
    const kind = KINDS[f.scalar];
    if (kind === undefined) return;
    const wire = kind === "string" || kind === "bytes" ? LEN : 0;
    fields.push({ no: f.number, name: f.localName, kind, tag: [...varintBytes((f.number << 3) | wire)] });
  }
  return fields;
}

const UPLINK_FIELDS = fieldTable(UplinkSchema);
/** Field number → its entry, for decoding. */
const BY_NUMBER: (Field | undefined)[] = [];
for (const f of UPLINK_FIELDS ?? []) BY_NUMBER[f.no] = f;

const TAG_UPLINK = (AdapterMessageSchema.field.uplink.number << 3) | LEN;
const TAG_BATCH = (AdapterMessageSchema.field.uplinkBatch.number << 3) | LEN;
const TAG_BATCH_ITEM = (UplinkBatchSchema.field.uplinks.number << 3) | LEN;

/** False when Uplink has a field this codec cannot carry: protobuf-es does all the work then. */
export const fastUplinkCodec = UPLINK_FIELDS !== undefined;

/**
 * One AdapterMessage carrying `uplinks`: a lone one as `uplink` (the largest uplink fits a stream message only
 * without the batch's envelope), more as `uplinkBatch`. Undefined when `fastUplinkCodec` is false.
 */
export function encodeUplinksMessage(uplinks: readonly UplinkInit[]): EncodedAdapterMessage | undefined {
  if (UPLINK_FIELDS === undefined || uplinks.length === 0) return undefined;
  const values = uplinks.map(valuesOf);
  const sizes = values.map(uplinkSize);
  let inner = 0;
  for (const s of sizes) inner += uplinks.length === 1 ? s : 1 + varintSize(s) + s;
  const out = Buffer.allocUnsafe(1 + varintSize(inner) + inner);
  let at = out.writeUInt8(uplinks.length === 1 ? TAG_UPLINK : TAG_BATCH, 0);
  at = writeVarint(out, at, inner);
  for (let i = 0; i < uplinks.length; i++) {
    if (uplinks.length > 1) {
      out[at++] = TAG_BATCH_ITEM;
      at = writeVarint(out, at, sizes[i]!);
    }
    at = writeUplink(out, at, values[i]!);
  }
  return out as unknown as EncodedAdapterMessage;
}

/**
 * The AdapterMessage in `bytes` when it carries only uplinks (`uplink` or `uplinkBatch`) in fields this codec knows;
 * undefined for any other message, which protobuf-es decodes instead.
 */
export function decodeUplinksMessage(bytes: Uint8Array): AdapterMessage | undefined {
  if (UPLINK_FIELDS === undefined || bytes.length < 2) return undefined;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return decodeMessage(buf);
  } catch {
    return undefined; // truncated: protobuf-es says what is wrong
  }
}

function decodeMessage(buf: Buffer): AdapterMessage | undefined {
  const tag = buf[0];
  if (tag !== TAG_UPLINK && tag !== TAG_BATCH) return undefined;
  const len = readVarint(buf, 1);
  const start = after;
  if (start + len !== buf.length) return undefined;
  if (tag === TAG_UPLINK) {
    const uplink = readUplink(buf, start, buf.length);
    if (uplink === undefined) return undefined;
    return { $typeName: AdapterMessageSchema.typeName, kind: { case: "uplink", value: uplink } };
  }
  const uplinks: Uplink[] = [];
  for (let at = start; at < buf.length;) {
    if (buf[at] !== TAG_BATCH_ITEM) return undefined;
    const n = readVarint(buf, at + 1);
    const from = after;
    if (from + n > buf.length) return undefined;
    const uplink = readUplink(buf, from, from + n);
    if (uplink === undefined) return undefined;
    uplinks.push(uplink);
    at = from + n;
  }
  return {
    $typeName: AdapterMessageSchema.typeName,
    kind: { case: "uplinkBatch", value: { $typeName: UplinkBatchSchema.typeName, uplinks } },
  };
}

type Values = Record<string, unknown>;

/** Uplink's fields as declared when this was written, in order: `valuesOf` reads them without a keyed lookup. */
const DECLARED = [
  "seq",
  "sessionId",
  "deviceIntId",
  "topic",
  "payload",
  "clientIp",
  "receivedAtMs",
  "qos",
  "tenantId",
  "gatewayDeviceIntId",
  "metadata",
  "resendId",
  "maybeResend",
] as const;

/** Whether Uplink's fields are still those of DECLARED, in that order. */
const DECLARED_FIELDS =
  UPLINK_FIELDS?.length === DECLARED.length && UPLINK_FIELDS.every((f, i) => f.name === DECLARED[i]);

/**
 * The values of an uplink's fields, in UPLINK_FIELDS order. Reading them by name from the field table (one keyed load
 * site seeing every field name) was most of this codec's time; while Uplink's fields are those of DECLARED they are
 * read by plain property access, else (a field added since) by name.
 */
const valuesOf: (u: UplinkInit) => unknown[] = DECLARED_FIELDS
  ? (u) => [
      u.seq,
      u.sessionId,
      u.deviceIntId,
      u.topic,
      u.payload,
      u.clientIp,
      u.receivedAtMs,
      u.qos,
      u.tenantId,
      u.gatewayDeviceIntId,
      u.metadata,
      u.resendId,
      u.maybeResend,
    ]
  : (u) => UPLINK_FIELDS!.map((f) => (u as Values)[f.name]);

function uplinkSize(values: readonly unknown[]): number {
  let size = 0;
  for (let i = 0; i < UPLINK_FIELDS!.length; i++) {
    const f = UPLINK_FIELDS![i]!;
    const v = values[i];
    switch (f.kind) {
      case "string": {
        const n = typeof v === "string" ? utf8Length(v) : 0;
        if (n > 0) size += f.tag.length + varintSize(n) + n;
        break;
      }
      case "bytes": {
        const n = v instanceof Uint8Array ? v.byteLength : 0;
        if (n > 0) size += f.tag.length + varintSize(n) + n;
        break;
      }
      case "bool":
        if (v === true) size += f.tag.length + 1;
        break;
      default: {
        const n = integer(v);
        if (n !== 0 && n !== 0n) size += f.tag.length + integerSize(f.kind, n);
      }
    }
  }
  return size;
}

function writeUplink(out: Buffer, at: number, values: readonly unknown[]): number {
  for (let i = 0; i < UPLINK_FIELDS!.length; i++) {
    const f = UPLINK_FIELDS![i]!;
    const v = values[i];
    switch (f.kind) {
      case "string": {
        if (typeof v !== "string" || v.length === 0) break;
        at = writeTag(out, at, f.tag);
        const n = utf8Length(v);
        at = writeVarint(out, at, n);
        at = writeString(out, at, v, n);
        break;
      }
      case "bytes": {
        if (!(v instanceof Uint8Array) || v.byteLength === 0) break;
        at = writeTag(out, at, f.tag);
        at = writeVarint(out, at, v.byteLength);
        out.set(v, at);
        at += v.byteLength;
        break;
      }
      case "bool":
        if (v !== true) break;
        at = writeTag(out, at, f.tag);
        out[at++] = 1;
        break;
      default: {
        const n = integer(v);
        if (n === 0 || n === 0n) break;
        at = writeTag(out, at, f.tag);
        at = writeInteger(out, at, f.kind, n);
      }
    }
  }
  return at;
}

function writeTag(out: Buffer, at: number, tag: readonly number[]): number {
  for (let i = 0; i < tag.length; i++) out[at++] = tag[i]!;
  return at;
}

/** Strings up to this many UTF-16 units are measured and written by a JS loop when they are ASCII. */
const SHORT_STRING = 64;

/**
 * UTF-8 bytes of `s`. An uplink's strings are short and usually ASCII (ids, topic, address): a loop over them costs
 * far less than Buffer.byteLength's call into C++, which with the write below was half of this codec's time.
 */
export function utf8Length(s: string): number {
  const n = s.length;
  if (n > SHORT_STRING) return Buffer.byteLength(s);
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s);
  return n;
}

/** Writes `s`, of `bytes` UTF-8 bytes (utf8Length), at `at`; answers the offset after it. */
export function writeString(out: Buffer, at: number, s: string, bytes: number): number {
  if (bytes !== s.length || bytes > SHORT_STRING) return at + out.write(s, at, bytes, "utf8");
  for (let i = 0; i < bytes; i++) out[at + i] = s.charCodeAt(i);
  return at + bytes;
}

function readUplink(buf: Buffer, at: number, end: number): Uplink | undefined {
  const u = newUplink();
  while (at < end) {
    const tag = readVarint(buf, at);
    const f = BY_NUMBER[tag >>> 3];
    const wire = tag & 7;
    if (f === undefined || wire !== (f.kind === "string" || f.kind === "bytes" ? LEN : 0)) return undefined;
    if (wire === LEN) {
      const n = readVarint(buf, after);
      const from = after;
      if (from + n > end) return undefined;
      u[f.name] = f.kind === "string" ? buf.toString("utf8", from, from + n) : buf.subarray(from, from + n);
      at = from + n;
    } else {
      const value = readVarint64(buf, after);
      u[f.name] = integerValue(f.kind, value);
      at = after;
    }
  }
  return at === end ? (u as unknown as Uplink) : undefined;
}

/** The zero-length bytes of an absent `bytes` field (it cannot be written to: one serves every uplink). */
const NO_BYTES = new Uint8Array(0);

/**
 * A new Uplink with every field at its zero value, for readUplink to fill: while Uplink's fields are those of
 * DECLARED, one object literal (every uplink gets the same hidden class at once, instead of one field added after
 * the other), else from the field table.
 */
const newUplink: () => Values = DECLARED_FIELDS
  ? () => ({
      $typeName: UplinkSchema.typeName,
      seq: 0n,
      sessionId: "",
      deviceIntId: 0n,
      topic: "",
      payload: NO_BYTES,
      clientIp: "",
      receivedAtMs: 0n,
      qos: 0,
      tenantId: "",
      gatewayDeviceIntId: 0n,
      metadata: "",
      resendId: "",
      maybeResend: false,
    })
  : () => {
      const u: Values = { $typeName: UplinkSchema.typeName };
      for (const f of UPLINK_FIELDS!) u[f.name] = zero(f.kind);
      return u;
    };

function zero(kind: Kind): unknown {
  switch (kind) {
    case "int64":
    case "uint64":
      return 0n;
    case "bool":
      return false;
    case "string":
      return "";
    case "bytes":
      return NO_BYTES;
    default:
      return 0;
  }
}

/** An integer field's value as given (bigint, number or numeric string), 0 when absent; a number when it fits one. */
export function integer(v: unknown): number | bigint {
  if (typeof v === "number") return v;
  // The common case, an id or a time: plain arithmetic is far cheaper than BigInt shifts.
  if (typeof v === "bigint") return v >= 0n && v <= MAX_SAFE ? Number(v) : v;
  if (typeof v === "string" && v !== "") return BigInt(v);
  return 0;
}

/** Its unsigned 64-bit wire value: negatives as two's complement (int32 sign-extended to 64 bits, as protobuf does). */
function wireValue(kind: Kind, n: number | bigint): number | bigint {
  if (kind === "uint32") return Number(n) >>> 0;
  if (kind === "int32") n = Number(n) | 0;
  if (typeof n === "number" && n >= 0 && Number.isSafeInteger(n)) return n;
  return BigInt.asUintN(64, BigInt(n));
}

export function integerSize(kind: Kind, n: number | bigint): number {
  const w = wireValue(kind, n);
  if (typeof w === "number") return varintSize(w);
  let size = 1;
  for (let x = w >> 7n; x > 0n; x >>= 7n) size++;
  return size;
}

export function writeInteger(out: Buffer, at: number, kind: Kind, n: number | bigint): number {
  const w = wireValue(kind, n);
  if (typeof w === "number") return writeVarint(out, at, w);
  let x = w;
  while (x >= 0x80n) {
    out[at++] = Number(x & 0x7fn) | 0x80;
    x >>= 7n;
  }
  out[at++] = Number(x);
  return at;
}

function integerValue(kind: Kind, v: number | bigint): unknown {
  switch (kind) {
    case "int64":
      return typeof v === "bigint" ? BigInt.asIntN(64, v) : BigInt(v);
    case "uint64":
      return BigInt(v);
    case "int32":
      return typeof v === "number" ? v | 0 : Number(BigInt.asIntN(32, v));
    case "uint32":
      return typeof v === "number" ? v >>> 0 : Number(BigInt.asUintN(32, v));
    default:
      return v !== 0 && v !== 0n;
  }
}

/** Bytes of the varint of a non-negative safe integer. */
function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

export function writeVarint(out: Buffer, at: number, n: number): number {
  while (n >= 0x80) {
    out[at++] = (n % 0x80) | 0x80;
    n = Math.floor(n / 0x80);
  }
  out[at++] = n;
  return at;
}

function varintBytes(n: number): Buffer {
  const b = Buffer.alloc(varintSize(n));
  writeVarint(b, 0, n);
  return b;
}

/**
 * The offset after the varint `readVarint` or `readVarint64` read last. Set by them instead of answering a pair: an
 * array per varint, a dozen per uplink, was most of the decoder's allocations.
 */
let after = 0;

/** A varint of at most 32 bits (tags, lengths); the offset after it goes to `after`. */
function readVarint(buf: Buffer, at: number): number {
  const v = readVarint64(buf, at);
  return typeof v === "number" ? v : Number(v & 0xffffffffn);
}

/** A varint of up to 64 bits: a number while it fits 49 bits, else a bigint; the offset after it goes to `after`. */
function readVarint64(buf: Buffer, at: number): number | bigint {
  let n = 0;
  let scale = 1;
  for (let i = 0; i < 7; i++) {
    const b = buf[at++];
    if (b === undefined) throw new RangeError("varint past the end of the message");
    n += (b & 0x7f) * scale;
    if (b < 0x80) {
      after = at;
      return n;
    }
    scale *= 0x80;
  }
  let big = BigInt(n);
  for (let shift = 49n; shift < 70n; shift += 7n) {
    const b = buf[at++];
    if (b === undefined) throw new RangeError("varint past the end of the message");
    big |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      after = at;
      return BigInt.asUintN(64, big);
    }
  }
  throw new RangeError("varint longer than 10 bytes");
}
