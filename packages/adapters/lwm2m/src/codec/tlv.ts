import { ok, refuse, type Result } from "./result.js";

/**
 * OMA-TLV, content format 11542 (OMA-TS-LightweightM2M-V1_0 §6.4.3, Core V1_1 §7.4): the structure only. Each entry
 * is a type byte (bits 7-6 what it is, bit 5 a 16-bit identifier, bits 4-3 the size of the length field, bits 2-0
 * the length when that field is absent), the identifier, the length, and the value. Values come out as raw bytes:
 * their meaning depends on the object model, which {@link readTlvValue} and the object table supply.
 */

/** A resource with one value. */
export interface TlvResource {
  readonly kind: "resource";
  readonly id: number;
  readonly value: Uint8Array;
}

/** One instance of a multiple resource. */
export interface TlvResourceInstance {
  readonly kind: "resourceInstance";
  readonly id: number;
  readonly value: Uint8Array;
}

/** A multiple resource: its instances. */
export interface TlvMultipleResource {
  readonly kind: "multipleResource";
  readonly id: number;
  readonly instances: readonly TlvResourceInstance[];
}

/** An object instance: its resources. */
export interface TlvObjectInstance {
  readonly kind: "objectInstance";
  readonly id: number;
  readonly resources: readonly (TlvResource | TlvMultipleResource)[];
}

/** Any TLV entry. */
export type Tlv = TlvObjectInstance | TlvMultipleResource | TlvResource | TlvResourceInstance;

/** Default largest TLV payload decoded, bytes: 64 KiB (a whole-object read of a rich device is a few KiB). */
export const MAX_TLV_BYTES = 65_536;

/** Largest value length a TLV entry can state (24-bit length field). */
export const MAX_TLV_LENGTH = 0xffffff;

const KINDS = ["objectInstance", "resourceInstance", "multipleResource", "resource"] as const;
const KIND_BITS: Record<Tlv["kind"], number> = {
  objectInstance: 0,
  resourceInstance: 1,
  multipleResource: 2,
  resource: 3,
};

type Level = "top" | "objectInstance" | "multipleResource";
const ALLOWED: Record<Level, readonly Tlv["kind"][]> = {
  top: KINDS,
  objectInstance: ["resource", "multipleResource"],
  multipleResource: ["resourceInstance"],
};
/** Top-level entries must be of one family: instances, resources (single or multiple), or resource instances. */
const FAMILY: Record<Tlv["kind"], number> = {
  objectInstance: 0,
  resource: 1,
  multipleResource: 1,
  resourceInstance: 2,
};

/**
 * Decodes a TLV payload into entries. Refuses, with the byte offset: a payload above `maxBytes`; a header or value
 * that runs past the end of its container; an entry that cannot sit where it is (an object instance inside another,
 * a resource instance outside a multiple resource); top-level entries of different families; two entries with the
 * same id in one container. An empty payload is no entries. Non-minimal identifier or length fields are accepted.
 */
export function decodeTlv(bytes: Uint8Array, maxBytes: number = MAX_TLV_BYTES): Result<Tlv[]> {
  if (bytes.length > maxBytes) return refuse(`TLV payload of ${bytes.length} bytes is above the limit of ${maxBytes}`);
  const entries = readEntries(bytes, 0, bytes.length, "top");
  if (!entries.ok) return entries;
  const families = new Set(entries.value.map((e) => FAMILY[e.kind]));
  if (families.size > 1) return refuse("TLV payload mixes object instances, resources and resource instances");
  return entries;
}

function readEntries(bytes: Uint8Array, start: number, end: number, level: Level): Result<Tlv[]> {
  const out: Tlv[] = [];
  const seen = new Set<string>();
  let pos = start;
  while (pos < end) {
    const type = bytes[pos]!;
    const kind = KINDS[type >> 6]!;
    const idBytes = type & 0x20 ? 2 : 1;
    const lengthBytes = (type >> 3) & 0x3;
    const headerEnd = pos + 1 + idBytes + lengthBytes;
    if (headerEnd > end) return refuse(`TLV header at byte ${pos} is cut off: ${headerEnd - end} byte(s) missing`);
    let id = 0;
    for (let i = pos + 1; i < pos + 1 + idBytes; i++) id = id * 256 + bytes[i]!;
    let length = lengthBytes === 0 ? type & 0x7 : 0;
    for (let i = pos + 1 + idBytes; i < headerEnd; i++) length = length * 256 + bytes[i]!;
    const valueEnd = headerEnd + length;
    if (valueEnd > end)
      return refuse(`TLV ${kind} ${id} at byte ${pos} has ${length} value bytes, ${end - headerEnd} left`);
    if (!ALLOWED[level].includes(kind)) return refuse(`TLV ${kind} ${id} at byte ${pos} cannot be inside ${level}`);
    const key = `${FAMILY[kind]}:${id}`;
    if (seen.has(key)) return refuse(`TLV ${kind} ${id} at byte ${pos} repeats an id in its container`);
    seen.add(key);
    if (kind === "objectInstance" || kind === "multipleResource") {
      const children = readEntries(bytes, headerEnd, valueEnd, kind);
      if (!children.ok) return children;
      out.push(
        kind === "objectInstance"
          ? { kind, id, resources: children.value as (TlvResource | TlvMultipleResource)[] }
          : { kind, id, instances: children.value as TlvResourceInstance[] },
      );
    } else out.push({ kind, id, value: new Uint8Array(bytes.subarray(headerEnd, valueEnd)) });
    pos = valueEnd;
  }
  return ok(out);
}

/**
 * Encodes entries with the shortest fields, as the specification's examples are written: an 8-bit identifier up
 * to 255, the length in the type byte up to 7, else an 8, 16 or 24-bit length field. Refuses an id beyond
 * 0..65535 and a value or container longer than 2^24-1 bytes.
 */
export function encodeTlv(entries: readonly Tlv[]): Result<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const written = writeEntries(entries, chunks);
  return written.ok ? ok(Buffer.concat(chunks)) : written;
}

function writeEntries(entries: readonly Tlv[], chunks: Uint8Array[]): Result<number> {
  let total = 0;
  for (const entry of entries) {
    if (!Number.isInteger(entry.id) || entry.id < 0 || entry.id > 65535)
      return refuse(`TLV ${entry.kind} id ${entry.id} is beyond 0..65535`);
    let body: Uint8Array;
    if (entry.kind === "resource" || entry.kind === "resourceInstance") body = entry.value;
    else {
      const inner: Uint8Array[] = [];
      const children = entry.kind === "objectInstance" ? entry.resources : entry.instances;
      const size = writeEntries(children, inner);
      if (!size.ok) return size;
      body = Buffer.concat(inner);
    }
    if (body.length > MAX_TLV_LENGTH)
      return refuse(`TLV ${entry.kind} ${entry.id} of ${body.length} bytes is above ${MAX_TLV_LENGTH}`);
    const header = tlvHeader(entry.kind, entry.id, body.length);
    chunks.push(header, body);
    total += header.length + body.length;
  }
  return ok(total);
}

function tlvHeader(kind: Tlv["kind"], id: number, length: number): Uint8Array {
  const wideId = id > 0xff;
  const lengthBytes = length < 8 ? 0 : length <= 0xff ? 1 : length <= 0xffff ? 2 : 3;
  const header = new Uint8Array(1 + (wideId ? 2 : 1) + lengthBytes);
  header[0] = (KIND_BITS[kind] << 6) | (wideId ? 0x20 : 0) | (lengthBytes << 3) | (lengthBytes === 0 ? length : 0);
  let pos = 1;
  if (wideId) header[pos++] = id >> 8;
  header[pos++] = id & 0xff;
  for (let shift = (lengthBytes - 1) * 8; shift >= 0; shift -= 8) header[pos++] = (length >> shift) & 0xff;
  return header;
}
