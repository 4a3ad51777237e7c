import { isUtf8 } from "node:buffer";
import { ScalarType, fromBinary, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
// protobuf-es's `presence` of proto3 fields without `optional`: a zero message has them at their zero value.
import { Edition, FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { KINDS, type Kind } from "./uplink-codec.js";

/**
 * A protobuf binary decoder for one message type, made once from its descriptor (the counterpart of messageEncoder):
 * objects equal to protobuf-es's `fromBinary` (the same `$typeName`, every implicit field at its zero value when
 * absent, oneofs as `{ case, value }`, bytes as views of the input), without its reflection (a `reflect()` wrapper
 * per message, a `findNumber` and a `set` through it per field, a `[fieldNo, wireType]` array per tag, a
 * TextDecoder call per string). AuthenticateBatch requests and answers, 200 devices each, and the SessionOpenedBatch
 * stream messages of a connect storm were 5–6 % of the MQTT adapter's and the central node's CPU that way.
 *
 * Field sorts it reads itself: the scalars an id, a name or a flag takes (string, bytes, bool, 32- and 64-bit varint
 * integers), open enums, messages, lists of messages and lists of those scalars (packed or not), and oneofs of
 * them, in proto3 message types. A message type with another sort (a map, a float, a fixed or zigzag integer, a
 * group, a closed enum, an int64 as string) or of another syntax is decoded by `fromBinary`; so is a message
 * carrying anything this decoder does not expect on the wire (an unknown field, which fromBinary keeps in
 * `$unknown`; another wire type; a message field sent twice, which fromBinary merges; a truncated message, for
 * which fromBinary throws its error).
 */
export type MessageDecoder<D extends DescMessage> = (bytes: Uint8Array) => MessageShape<D>;

type Message = Record<string, unknown>;

/** Reads a message of one type from the read position to `end` (the offset after it). */
type ReadMessage = (end: number) => Message;

const VARINT = 0;
const LEN = 2;

/** Thrown inside the decoder when the message goes to fromBinary instead; never seen outside. */
const FALLBACK = new Error("message left to fromBinary");

const EMPTY = Buffer.alloc(0);

/**
 * The message being decoded (as given, for the views of bytes fields, and as a Buffer) and the read position in it.
 * One decode runs at a time (it never waits); the generated readers share this state with the functions below.
 */
const state: { given: Uint8Array; buf: Buffer; pos: number } = { given: EMPTY, buf: EMPTY, pos: 0 };

/** A varint of up to 64 bits: a number while it fits 49 bits, else a bigint. */
function varint64(): number | bigint {
  const { buf } = state;
  let n = 0;
  let scale = 1;
  for (let i = 0; i < 7; i++) {
    const b = buf[state.pos++];
    if (b === undefined) throw FALLBACK;
    n += (b & 0x7f) * scale;
    if (b < 0x80) return n;
    scale *= 0x80;
  }
  let big = BigInt(n);
  for (let shift = 49n; shift < 70n; shift += 7n) {
    const b = buf[state.pos++];
    if (b === undefined) throw FALLBACK;
    big |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return BigInt.asUintN(64, big);
  }
  throw FALLBACK;
}

/** A varint of at most 32 bits (tags, lengths, 32-bit integers; higher bits dropped, as protobuf-es does). */
function varint32(): number {
  const { buf } = state;
  const b = buf[state.pos];
  // One byte: most tags, lengths and small numbers.
  if (b !== undefined && b < 0x80) {
    state.pos++;
    return b;
  }
  const v = varint64();
  return typeof v === "number" ? v % 0x100000000 : Number(v & 0xffffffffn);
}

/** The end of a length-delimited value (its length read here). */
function delimited(): number {
  const end = varint32() + state.pos;
  if (end > state.buf.length) throw FALLBACK;
  return end;
}

/** Strings up to this many bytes are read by a JS loop when they are ASCII. */
const SHORT_STRING = 32;

/**
 * A length-delimited string. Ids, names and addresses are short and usually ASCII: a loop over them costs less than
 * Buffer's call into C++. A proto3 string must be valid UTF-8: protobuf-es refuses the message otherwise, so such a
 * message goes to fromBinary for its error.
 */
function string(): string {
  const end = delimited();
  const { buf } = state;
  const from = state.pos;
  state.pos = end;
  if (end - from <= SHORT_STRING) {
    let s = "";
    let i = from;
    for (; i < end; i++) {
      const c = buf[i]!;
      if (c >= 0x80) break;
      s += String.fromCharCode(c);
    }
    if (i === end) return s;
  }
  const bytes = buf.subarray(from, end);
  if (!isUtf8(bytes)) throw FALLBACK;
  return bytes.toString("utf8");
}

/** The scalar readers the generated code calls, by sort. */
const readers = {
  string,
  bytes(): Uint8Array {
    const end = delimited();
    const from = state.pos;
    state.pos = end;
    // A view, as protobuf-es gives (a Buffer's when the input was one).
    return state.given.subarray(from, end);
  },
  bool(): boolean {
    const v = varint64();
    return v !== 0 && v !== 0n;
  },
  int32: (): number => varint32() | 0,
  uint32: (): number => varint32() >>> 0,
  int64(): bigint {
    const v = varint64();
    return typeof v === "number" ? BigInt(v) : BigInt.asIntN(64, v);
  },
  uint64: (): bigint => BigInt(varint64()),
  delimited,
  varint32,
} satisfies Record<Kind | "delimited" | "varint32", () => unknown>;

/** Each scalar sort's wire type. */
const wireOf = (kind: Kind) => (kind === "string" || kind === "bytes" ? LEN : VARINT);

/** A scalar's zero value as code, as protobuf-es's zero message has it; `Z` is the shared empty bytes. */
function zeroCode(kind: Kind): string {
  switch (kind) {
    case "string":
      return '""';
    case "bytes":
      return "Z";
    case "bool":
      return "false";
    case "int64":
    case "uint64":
      return "0n";
    default:
      return "0";
  }
}

/** The empty bytes of every absent bytes field (none can be written to). */
const NO_BYTES = new Uint8Array(0);

/** The sort of a scalar, enum or list field's values this decoder reads, or undefined. */
function kindOf(f: DescField): Kind | undefined {
  if (f.fieldKind === "enum" || (f.fieldKind === "list" && f.listKind === "enum"))
    return f.enum.open ? "int32" : undefined;
  if (f.fieldKind !== "scalar" && !(f.fieldKind === "list" && f.listKind === "scalar")) return undefined;
  // An int64 as string, and a string field that may hold invalid UTF-8 (not proto3's), are left to protobuf-es.
  if (f.longAsString || (f.scalar === ScalarType.STRING && !f.utf8Validation)) return undefined;
  return KINDS[f.scalar];
}

/** The `case` clauses reading field `f` into `m`; undefined for a sort left to fromBinary. `nested` names D[i]. */
function fieldCases(f: DescField, nested: (schema: DescMessage) => string): string | undefined {
  const key = JSON.stringify(f.localName);
  const tag = (wire: number) => (f.number << 3) | wire;
  const oneof = f.oneof && JSON.stringify(f.oneof.localName);
  const set = (value: string) => (oneof ? `m[${oneof}] = { case: ${key}, value: ${value} }` : `m[${key}] = ${value}`);
  switch (f.fieldKind) {
    case "scalar":
    case "enum": {
      const kind = kindOf(f);
      return kind && `case ${tag(wireOf(kind))}: ${set(`R.${kind}()`)}; break;`;
    }
    case "message": {
      if (f.delimitedEncoding) return undefined;
      // The same message twice is merged by fromBinary.
      const twice = oneof ? `m[${oneof}].case === ${key}` : `m[${key}] !== undefined`;
      return `case ${tag(LEN)}: if (${twice}) throw F; ${set(`${nested(f.message)}(R.delimited())`)}; break;`;
    }
    case "list": {
      if (f.listKind === "message")
        return f.delimitedEncoding
          ? undefined
          : `case ${tag(LEN)}: m[${key}].push(${nested(f.message)}(R.delimited())); break;`;
      const kind = kindOf(f);
      if (!kind) return undefined;
      const one = `case ${tag(wireOf(kind))}: m[${key}].push(R.${kind}()); break;`;
      if (wireOf(kind) === LEN) return one;
      // Packed, the usual form; protobuf-es reads either.
      return `${one}
      case ${tag(LEN)}: {
        const e = R.delimited(), l = m[${key}];
        while (S.pos < e) l.push(R.${kind}());
        if (S.pos !== e) throw F;
        break;
      }`;
    }
    default:
      return undefined;
  }
}

/** The reader of each message type planned so far; null for a type left to fromBinary. */
const planned = new Map<DescMessage, ReadMessage | null>();

/**
 * The reader of `schema`'s messages, generated once as code: the zero message as one object literal and a `switch`
 * on the tag with a plain property store per field. Made of shared functions instead, every message type's fields
 * went through the same property-access sites, which V8 then handles generically (several times slower); an object
 * literal per type, like protobuf-es's zero message made field by field, was most of the difference. The code names
 * fields only through JSON string literals of the descriptors' names.
 */
function readerOf(schema: DescMessage): ReadMessage | null {
  const known = planned.get(schema);
  if (known !== undefined) return known;
  // Other syntaxes keep explicit presence on a prototype chain, which this decoder does not build.
  if (schema.file.edition !== Edition.EDITION_PROTO3 || schema.fields.some((f) => f.presence === LEGACY_REQUIRED)) {
    planned.set(schema, null);
    return null;
  }
  const nestedTypes: DescMessage[] = [];
  const nested = (t: DescMessage) => `D[${nestedTypes.push(t) - 1}]`;
  const cases: string[] = [];
  for (const f of schema.fields) {
    const c = fieldCases(f, nested);
    if (c === undefined) {
      planned.set(schema, null);
      return null;
    }
    cases.push(c);
  }
  // The zero message: protobuf-es's createZeroMessage, its members in declaration order.
  const zero = [`"$typeName": ${JSON.stringify(schema.typeName)}`];
  for (const member of schema.members) {
    const key = JSON.stringify(member.localName);
    if (member.kind === "oneof") zero.push(`${key}: { case: undefined }`);
    else if (member.fieldKind === "list") zero.push(`${key}: []`);
    else if (member.fieldKind === "enum" && member.presence === IMPLICIT)
      zero.push(`${key}: ${member.enum.values[0]!.number}`);
    else if (member.fieldKind === "scalar" && member.presence === IMPLICIT)
      zero.push(`${key}: ${zeroCode(kindOf(member)!)}`);
  }
  const code = `return function read(end) {
    const m = { ${zero.join(", ")} };
    while (S.pos < end) {
      switch (R.varint32()) {
        ${cases.join("\n        ")}
        default: throw F; // an unknown field (fromBinary keeps it in $unknown) or another wire type
      }
    }
    if (S.pos !== end) throw F;
    return m;
  };`;
  const D: ReadMessage[] = [];
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from the descriptors, see above
  const read = new Function("R", "S", "D", "F", "Z", code)(readers, state, D, FALLBACK, NO_BYTES) as ReadMessage;
  planned.set(schema, read);
  for (const t of nestedTypes) {
    const r = readerOf(t);
    // A nested type left to fromBinary: a message that carries one goes there whole.
    D.push(
      r ??
        (() => {
          throw FALLBACK;
        }),
    );
  }
  return read;
}

const IMPLICIT = FeatureSet_FieldPresence.IMPLICIT;
const LEGACY_REQUIRED = FeatureSet_FieldPresence.LEGACY_REQUIRED;

/** The decoder of `schema`'s messages (see MessageDecoder). */
export function messageDecoder<D extends DescMessage>(schema: D): MessageDecoder<D> {
  const read = readerOf(schema);
  if (!read) return (bytes) => fromBinary(schema, bytes);
  return (bytes) => {
    state.given = bytes;
    state.buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    state.pos = 0;
    try {
      return read(bytes.byteLength) as MessageShape<D>;
    } catch {
      return fromBinary(schema, bytes);
    } finally {
      state.given = state.buf = EMPTY; // the message is not kept alive by the decoder
    }
  };
}
