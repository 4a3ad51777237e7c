import { AREA_PREFIX, isBitArea, MAX_OFFSET, type ModbusArea } from "./register-address.js";

/** Most registers one read may ask for (function codes 3 and 4, Modbus Application Protocol V1.1b3 §6.3). */
export const MAX_READ_REGISTERS = 125;

/** Most coils or discrete inputs one read may ask for (function codes 1 and 2, §6.1–6.2). */
export const MAX_READ_BITS = 2000;

/** Default registers left unread between two tags that still share a read: 8 registers, 16 bytes. */
export const DEFAULT_MAX_GAP = 8;

/** Default bits left unread between two coils or discrete inputs that still share a read: 16 bytes' worth. */
export const DEFAULT_MAX_BIT_GAP = 128;

/** One value to read: the unit, its area, its 0-based offset and how many registers (or bits) it spans. */
export interface ReadTag {
  unit: number;
  area: ModbusArea;
  offset: number;
  count: number;
}

/** Limits of merging; a gap of 0 merges only adjacent and overlapping tags (for slaves that refuse holes). */
export interface ReadPlanOptions {
  /** Registers left unread between tags in one request, at most (default {@link DEFAULT_MAX_GAP}). */
  maxGap?: number;
  /** Bits left unread between coils or discrete inputs in one request, at most ({@link DEFAULT_MAX_BIT_GAP}). */
  maxBitGap?: number;
  /** Registers per request, 1 to {@link MAX_READ_REGISTERS} (the default). */
  maxRegisters?: number;
  /** Bits per request, 1 to {@link MAX_READ_BITS} (the default). */
  maxBits?: number;
}

/** One read request and the tags it serves, each with the index of its first value in the response. */
export interface ReadRequest<T extends ReadTag> {
  unit: number;
  area: ModbusArea;
  offset: number;
  count: number;
  tags: { tag: T; at: number }[];
}

/** The requests of a poll cycle and the tags no request can serve (count 0, past 65535, over the request limit). */
export interface ReadPlan<T extends ReadTag> {
  requests: ReadRequest<T>[];
  refused: { tag: T; reason: string }[];
}

const clamp = (n: number | undefined, fallback: number, max: number) =>
  n === undefined || !Number.isInteger(n) ? fallback : Math.min(Math.max(n, 0), max);

/**
 * Merges the reads of a poll cycle into as few requests as possible: tags are grouped by unit and area, sorted by
 * offset, and a tag joins the open request when the registers (bits) between them are at most the gap limit and
 * the request stays within 125 registers (2000 bits); otherwise it opens the next request (greedy, left to right).
 * Overlapping and duplicate tags share a request. Requests come ordered by unit, area (0, 1, 3, 4) and offset.
 */
export function planReads<T extends ReadTag>(tags: readonly T[], options: ReadPlanOptions = {}): ReadPlan<T> {
  const maxGap = clamp(options.maxGap, DEFAULT_MAX_GAP, MAX_OFFSET);
  const maxBitGap = clamp(options.maxBitGap, DEFAULT_MAX_BIT_GAP, MAX_OFFSET);
  const maxRegisters = Math.max(1, clamp(options.maxRegisters, MAX_READ_REGISTERS, MAX_READ_REGISTERS));
  const maxBits = Math.max(1, clamp(options.maxBits, MAX_READ_BITS, MAX_READ_BITS));
  const refused: ReadPlan<T>["refused"] = [];
  const usable: T[] = [];
  for (const tag of tags) {
    const limit = isBitArea(tag.area) ? maxBits : maxRegisters;
    if (!Number.isInteger(tag.offset) || tag.offset < 0 || tag.offset > MAX_OFFSET)
      refused.push({ tag, reason: `offset ${tag.offset} is not 0 to ${MAX_OFFSET}` });
    else if (!Number.isInteger(tag.count) || tag.count < 1 || tag.count > limit)
      refused.push({ tag, reason: `count ${tag.count} is not 1 to ${limit}` });
    else if (tag.offset + tag.count - 1 > MAX_OFFSET)
      refused.push({ tag, reason: `offset ${tag.offset} + count ${tag.count} runs past ${MAX_OFFSET}` });
    else usable.push(tag);
  }
  usable.sort(
    (a, b) => a.unit - b.unit || AREA_PREFIX[a.area] - AREA_PREFIX[b.area] || a.offset - b.offset || b.count - a.count,
  );
  const requests: ReadRequest<T>[] = [];
  let open: ReadRequest<T> | undefined;
  for (const tag of usable) {
    const bits = isBitArea(tag.area);
    const end = tag.offset + tag.count;
    const fits =
      open !== undefined &&
      open.unit === tag.unit &&
      open.area === tag.area &&
      tag.offset - (open.offset + open.count) <= (bits ? maxBitGap : maxGap) &&
      Math.max(open.offset + open.count, end) - open.offset <= (bits ? maxBits : maxRegisters);
    if (open !== undefined && fits) {
      open.count = Math.max(open.count, end - open.offset);
      open.tags.push({ tag, at: tag.offset - open.offset });
    } else {
      open = { unit: tag.unit, area: tag.area, offset: tag.offset, count: tag.count, tags: [{ tag, at: 0 }] };
      requests.push(open);
    }
  }
  return { requests, refused };
}
