import { toBinary, type DescField, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
// protobuf-es's `presence` of proto3 fields without `optional`: zero values are not written.
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import {
  KINDS,
  integer,
  integerSize,
  utf8Length,
  writeInteger,
  writeString,
  writeVarint,
  type Kind,
} from "./uplink-codec.js";

/**
 * A protobuf binary encoder for one message type, made once from its descriptor: the same bytes as protobuf-es's
 * `toBinary` (fields in number order, zero values of implicit-presence fields left out, packed scalar lists), without
 * its reflection (a `reflect()` wrapper per message, an `isSet` and a `get` through it per field, a writer with a
 * chunk list and a fork per nested message, a TextEncoder copy per string). AuthenticateBatch requests and answers,
 * 200 devices each under a connect storm, were 5–12 % of the MQTT adapter's and the central node's CPU that way.
 *
 * Field sorts it writes itself: the scalars an id, a name or a flag takes (string, bytes, bool, 32- and 64-bit
 * varint integers), enums, messages, lists of messages and packed lists of those integers, and oneofs of any of
 * them. A message type with another sort (a map, a float, a fixed or zigzag integer, a group, a required field) is
 * written by `toBinary` where it occurs; so is a message that carries unknown fields. Values are taken as given, as
 * `toBinary` takes them (an int64 as bigint, number or numeric string).
 */
export type MessageEncoder<D extends DescMessage> = (message: MessageShape<D>) => Buffer;

/** Writes one field's value (known to be set) at `at`; answers the offset after it. */
type FieldWriter = (value: unknown, at: number) => number;

interface Plan {
  readonly fields: readonly PlannedField[];
}

interface PlannedField {
  readonly field: DescField;
  /** The property the value is read from: the field's, or its oneof's (a `{ case, value }`). */
  readonly key: string;
  readonly oneofCase: string | undefined;
  readonly implicit: boolean;
  readonly write: FieldWriter;
}

const VARINT = 0;
const LEN = 2;

/** The buffer every encoding is written into first (grown when a message needs more); answers are copied out. */
let out = Buffer.allocUnsafe(64 * 1024);

/** Makes room for `bytes` more at `at`, keeping what is written. */
function reserve(at: number, bytes: number): void {
  if (at + bytes <= out.length) return;
  const grown = Buffer.allocUnsafe(Math.max(out.length * 2, at + bytes));
  out.copy(grown, 0, 0, at);
  out = grown;
}

function writeTag(at: number, no: number, wire: number): number {
  reserve(at, 5);
  return writeVarint(out, at, (no << 3) | wire);
}

/** Moves what was written from `start` to `at` so that its length fits before it (one byte was kept for it). */
function delimit(start: number, at: number): number {
  const length = at - start - 1;
  if (length < 0x80) {
    out[start] = length;
    return at;
  }
  let size = 1;
  for (let n = length; n >= 0x80; n = Math.floor(n / 0x80)) size++;
  reserve(at, size - 1);
  out.copyWithin(start + size, start + 1, at);
  writeVarint(out, start, length);
  return at + size - 1;
}

function scalarWriter(kind: Kind): FieldWriter {
  switch (kind) {
    case "string":
      return (v, at) => {
        const s = v as string;
        const n = utf8Length(s);
        reserve(at, 5 + n);
        return writeString(out, writeVarint(out, at, n), s, n);
      };
    case "bytes":
      return (v, at) => {
        const b = v as Uint8Array;
        reserve(at, 5 + b.byteLength);
        at = writeVarint(out, at, b.byteLength);
        out.set(b, at);
        return at + b.byteLength;
      };
    case "bool":
      return (v, at) => {
        reserve(at, 1);
        out[at] = v === true ? 1 : 0;
        return at + 1;
      };
    default:
      return (v, at) => {
        const n = integer(v);
        reserve(at, integerSize(kind, n));
        return writeInteger(out, at, kind, n);
      };
  }
}

/** Whether a scalar value is its type's zero (not written for implicit presence). */
function isZero(v: unknown): boolean {
  if (typeof v === "string") return v.length === 0;
  if (v instanceof Uint8Array) return v.byteLength === 0;
  return v === 0 || v === 0n || v === false || v === undefined || v === null;
}

const plans = new Map<DescMessage, Plan | null>();

/** How `schema` is written field by field; null when one of its fields is of a sort left to toBinary. */
function planOf(schema: DescMessage): Plan | null {
  const known = plans.get(schema);
  if (known !== undefined) return known;
  const fields: PlannedField[] = [];
  for (const field of [...schema.fields].sort((a, b) => a.number - b.number)) {
    const write = fieldWriter(field);
    if (!write || field.presence === FeatureSet_FieldPresence.LEGACY_REQUIRED) return null;
    fields.push({
      field,
      key: field.oneof ? field.oneof.localName : field.localName,
      oneofCase: field.oneof ? field.localName : undefined,
      implicit: !field.oneof && field.presence === FeatureSet_FieldPresence.IMPLICIT,
      write,
    });
  }
  const plan = { fields };
  plans.set(schema, plan);
  return plan;
}

/** The writer of one field's value with its tag, or undefined for a sort this encoder leaves to toBinary. */
function fieldWriter(f: DescField): FieldWriter | undefined {
  const no = f.number;
  switch (f.fieldKind) {
    case "scalar": {
      const kind = KINDS[f.scalar];
      if (!kind || f.longAsString) return undefined;
      const wire = kind === "string" || kind === "bytes" ? LEN : VARINT;
      const value = scalarWriter(kind);
      return (v, at) => value(v, writeTag(at, no, wire));
    }
    case "enum": {
      const value = scalarWriter("int32");
      return (v, at) => value(v, writeTag(at, no, VARINT));
    }
    case "message": {
      if (f.delimitedEncoding) return undefined;
      const schema = f.message;
      return (v, at) => writeMessage(schema, v as MessageShape<DescMessage>, writeTag(at, no, LEN));
    }
    case "list": {
      if (f.listKind === "message") {
        if (f.delimitedEncoding) return undefined;
        const schema = f.message;
        return (v, at) => {
          for (const item of v as MessageShape<DescMessage>[]) at = writeMessage(schema, item, writeTag(at, no, LEN));
          return at;
        };
      }
      const kind = f.listKind === "enum" ? "int32" : f.longAsString ? undefined : KINDS[f.scalar];
      if (!kind || kind === "string" || kind === "bytes" || !f.packed) return undefined;
      const value = scalarWriter(kind);
      return (v, at) => {
        at = writeTag(at, no, LEN);
        reserve(at, 1);
        const start = at;
        at++;
        for (const item of v as unknown[]) at = value(item, at);
        return delimit(start, at);
      };
    }
    default:
      return undefined;
  }
}

/** Writes `message` as a length-delimited field body (its tag is written) at `at`. */
function writeMessage(schema: DescMessage, message: MessageShape<DescMessage>, at: number): number {
  reserve(at, 1);
  const start = at;
  return delimit(start, writeFields(schema, message, at + 1));
}

/** Writes the fields of `message` at `at`; answers the offset after them. */
function writeFields(schema: DescMessage, message: MessageShape<DescMessage>, at: number): number {
  const plan = planOf(schema);
  const unknown = (message as { $unknown?: unknown[] }).$unknown;
  if (!plan || (unknown && unknown.length > 0)) {
    const bytes = toBinary(schema, message);
    reserve(at, bytes.byteLength);
    out.set(bytes, at);
    return at + bytes.byteLength;
  }
  const record = message as unknown as Record<string, unknown>;
  for (const p of plan.fields) {
    let v = record[p.key];
    if (p.oneofCase !== undefined) {
      const oneof = v as { case: string | undefined; value?: unknown };
      if (oneof?.case !== p.oneofCase) continue;
      v = oneof.value;
    } else if (p.implicit ? isZero(v) || (Array.isArray(v) && v.length === 0) : v === undefined) continue;
    at = p.write(v, at);
  }
  return at;
}

/** The encoder of `schema`'s messages (see MessageEncoder). */
export function messageEncoder<D extends DescMessage>(schema: D): MessageEncoder<D> {
  return (message) => {
    const end = writeFields(schema, message, 0);
    const bytes = Buffer.allocUnsafe(end);
    out.copy(bytes, 0, 0, end);
    return bytes;
  };
}
