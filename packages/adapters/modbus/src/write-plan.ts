import type { ModbusTag } from "./channel-tags.js";
import { ok, refuse, type Result } from "./codec/result.js";
import { isWritableArea } from "./codec/register-address.js";
import { encodeValue, type ByteOrder, type EncodedWrite } from "./codec/value-codec.js";
import { isObject } from "./config-fields.js";
import type { LinkWrite } from "./transport/modbus-link.js";

/**
 * One step of a command: a write of coils or registers (several points when they are adjacent), or one bit of a
 * holding register, set by reading the register and writing it back with the bit changed.
 */
export type WriteStep =
  | { readonly kind: "write"; readonly names: readonly string[]; readonly write: LinkWrite }
  | {
      readonly kind: "bit";
      readonly names: readonly [string];
      readonly offset: number;
      readonly bit: number;
      readonly value: boolean;
    };

/** Why a point of a command cannot be written, or the encoded write. */
function checkPoint(tag: ModbusTag | undefined, value: unknown, order: ByteOrder): Result<EncodedWrite> {
  if (!tag) return refuse("no such data point on this Modbus device");
  if (tag.access === "R") return refuse("is not writable (tagattr R)");
  if (!isWritableArea(tag.area)) return refuse(`is in a read-only area (${tag.area})`);
  if (typeof value === "number" && tag.layout.kind !== "coil" && tag.layout.kind !== "bit") {
    if (tag.upperLimit !== null && value > tag.upperLimit)
      return refuse(`${value} is above upperLimit ${tag.upperLimit}`);
    if (tag.lowerLimit !== null && value < tag.lowerLimit)
      return refuse(`${value} is below lowerLimit ${tag.lowerLimit}`);
  }
  const encoded = encodeValue(tag.layout, value, order);
  return encoded.ok ? encoded : refuse(`value ${JSON.stringify(value)} ${encoded.reason}`);
}

interface Span {
  names: string[];
  area: "coil" | "holdingRegister";
  offset: number;
  values: (number | boolean)[];
}

/** Adjacent coil writes share a function 15 request, adjacent register writes a function 16 one. */
function mergeSpans(spans: Span[]): Result<Span[]> {
  spans.sort((a, b) => a.area.localeCompare(b.area) || a.offset - b.offset);
  const merged: Span[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    const end = last ? last.offset + last.values.length : -1;
    if (last?.area === span.area && span.offset < end)
      return refuse(`${last.names.at(-1)} and ${span.names[0]} overlap: write them in separate commands`);
    if (last?.area === span.area && span.offset === end) {
      last.names.push(...span.names);
      last.values.push(...span.values);
    } else merged.push({ ...span, names: [...span.names], values: [...span.values] });
  }
  return ok(merged);
}

/**
 * Turns a command `{"<dataPointID>": value, …}` for a unit into write steps, checking every point first: it must be
 * a tag of the unit, writable (tagattr W or RW, in coils or holding registers), within its limits and of a value its
 * type encodes. Any refusal refuses the whole command (nothing is written), listing every bad point. Coils and
 * registers go first (adjacent ones merged, function codes 5/15 and 6/16), bits of registers after them.
 */
export function planWrites(tags: readonly ModbusTag[], payload: Uint8Array, order: ByteOrder): Result<WriteStep[]> {
  let command: unknown;
  try {
    command = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    return refuse("the command is not UTF-8 JSON");
  }
  if (!isObject(command) || Object.keys(command).length === 0)
    return refuse('the command must be a JSON object {"<dataPointID>": value, …} naming at least one point');
  const problems: string[] = [];
  const spans: Span[] = [];
  const bits: WriteStep[] = [];
  for (const [name, value] of Object.entries(command)) {
    const tag = tags.find((t) => t.name === name);
    const encoded = checkPoint(tag, value, order);
    if (!encoded.ok) problems.push(`${name}: ${encoded.reason}`);
    else if (encoded.value.kind === "bit")
      bits.push({
        kind: "bit",
        names: [name],
        offset: tag!.offset,
        bit: encoded.value.bit,
        value: encoded.value.value,
      });
    else if (encoded.value.kind === "coil")
      spans.push({ names: [name], area: "coil", offset: tag!.offset, values: [encoded.value.value] });
    else spans.push({ names: [name], area: "holdingRegister", offset: tag!.offset, values: encoded.value.registers });
  }
  if (problems.length > 0) return refuse(problems.join("; "));
  const merged = mergeSpans(spans);
  if (!merged.ok) return merged;
  const writes = merged.value.map(({ names, area, offset, values }): WriteStep => ({
    kind: "write",
    names,
    write: { area, offset, values } as LinkWrite,
  }));
  return ok([...writes, ...bits]);
}
