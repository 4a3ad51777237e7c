import { DEFAULT_INTEGER_BYTES, integerSizeProblem } from "./integer-range.js";
import { epochMs } from "./time.js";
import { MAX_DECODE_PAYLOAD_BYTES, POINT_TYPE as T } from "./types.js";
import type { DecodeResult, DecodedValue, PointSpec, RefusedValue, StreamSpec } from "./types.js";
import { locationProblem, locationValue, magnitudeProblem, numberValue, refusal, textValue } from "./values.js";

/** Bytes of the big-endian length prefix of variable-length strings and binaries (so at most 65535 bytes each). */
export const LENGTH_PREFIX_BYTES = 2;

const utf8 = new TextDecoder("utf-8", { fatal: true });
const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

/**
 * Reading one point: its value or why it is refused, and where the next point
 * starts; `end` undefined means the rest of the layout cannot be known.
 */
type Step = { value?: DecodedValue; reason?: string; end: number | undefined };

/** A field runs past the payload's end; caught by {@link decodeBinary}, never escapes it. */
class Truncated extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Reads big-endian fields of `bytes`, throwing {@link Truncated} when one runs past the end. */
class Reader {
  readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  need(pos: number, n: number): void {
    if (pos + n > this.bytes.byteLength)
      throw new Truncated(`truncated: needs ${n} bytes at offset ${pos}, payload has ${this.bytes.byteLength}`);
  }

  /** The integer of `size` bytes at `pos`, or undefined beyond the safe integers (±2^53−1). */
  integer(pos: number, size: number, signed: boolean): number | undefined {
    this.need(pos, size);
    if (size <= 6) {
      let v = 0;
      for (let i = 0; i < size; i++) v = v * 256 + this.bytes[pos + i]!;
      return signed && v >= 2 ** (size * 8 - 1) ? v - 2 ** (size * 8) : v;
    }
    let v = 0n;
    for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(this.bytes[pos + i]!);
    if (signed && v >= 1n << BigInt(size * 8 - 1)) v -= 1n << BigInt(size * 8);
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : undefined;
  }

  slice(pos: number, n: number): Uint8Array {
    this.need(pos, n);
    return this.bytes.subarray(pos, pos + n);
  }
}

function float(point: PointSpec, r: Reader, pos: number, size: 4 | 8): Step {
  r.need(pos, size);
  const v = size === 4 ? r.view.getFloat32(pos) : r.view.getFloat64(pos);
  const end = pos + size;
  const problem = magnitudeProblem(v);
  return problem ? { reason: problem, end } : { value: numberValue(point, v), end };
}

function integer(point: PointSpec, r: Reader, pos: number, signed: boolean): Step {
  const size = point.binarySize ?? DEFAULT_INTEGER_BYTES;
  if (!Number.isInteger(size) || size < 1) return { reason: `binarySize ${size} is no length`, end: undefined };
  const problem = integerSizeProblem(size);
  if (problem) return { reason: problem, end: pos + size };
  const v = r.integer(pos, size, signed);
  const end = pos + size;
  return v === undefined ? { reason: "must be within ±(2^53 - 1)", end } : { value: numberValue(point, v), end };
}

function utf8Text(point: PointSpec, bytes: Uint8Array, end: number): Step {
  try {
    return { value: textValue(point, utf8.decode(bytes)), end };
  } catch {
    return { reason: "is not UTF-8", end };
  }
}

function fixedSize(point: PointSpec): number | undefined {
  const size = point.binarySize;
  return size !== null && Number.isInteger(size) && size >= 0 ? size : undefined;
}

function fixedString(point: PointSpec, r: Reader, pos: number): Step {
  const size = fixedSize(point);
  if (size === undefined) return { reason: "a fixed-length string needs binarySize", end: undefined };
  const bytes = r.slice(pos, size);
  let len = bytes.byteLength;
  while (len > 0 && bytes[len - 1] === 0) len--;
  return utf8Text(point, bytes.subarray(0, len), pos + size);
}

function variable(point: PointSpec, r: Reader, pos: number, text: boolean): Step {
  const len = r.integer(pos, LENGTH_PREFIX_BYTES, false)!;
  const start = pos + LENGTH_PREFIX_BYTES;
  const bytes = r.slice(start, len);
  return text ? utf8Text(point, bytes, start + len) : { value: textValue(point, hex(bytes)), end: start + len };
}

function geolocation(point: PointSpec, r: Reader, pos: number): Step {
  r.need(pos, 16);
  const [longitude, latitude] = [r.view.getFloat64(pos), r.view.getFloat64(pos + 8)];
  const problem = locationProblem(longitude, latitude);
  const end = pos + 16;
  return problem ? { reason: problem, end } : { value: locationValue(point, { longitude, latitude }), end };
}

function time(point: PointSpec, r: Reader, pos: number): Step {
  const ms = epochMs(r.integer(pos, 8, true));
  const end = pos + 8;
  return ms === undefined
    ? { reason: "must be epoch ms from 0 to 8.64e15", end }
    : { value: numberValue(point, ms), end };
}

/** Reads one non-bit point starting at byte `pos`. */
function readPoint(point: PointSpec, r: Reader, pos: number): Step {
  switch (point.pointDataType) {
    case T.numeric:
    case T.double:
      return float(point, r, pos, 8);
    case T.float:
    case T.modbusFloat:
      return float(point, r, pos, 4);
    case T.signedInteger:
    case T.modbusSignedLong:
      return integer(point, r, pos, true);
    case T.unsignedInteger:
    case T.modbusUnsignedLong:
      return integer(point, r, pos, false);
    case T.boolean:
    case T.modbusBoolean:
      return { value: numberValue(point, r.slice(pos, 1)[0] === 0 ? 0 : 1), end: pos + 1 };
    case T.fault:
      return { value: numberValue(point, r.slice(pos, 1)[0]!), end: pos + 1 };
    case T.fixedString:
      return fixedString(point, r, pos);
    case T.string:
    case T.variableString:
      return variable(point, r, pos, true);
    case T.fixedBinary: {
      const size = fixedSize(point);
      if (size === undefined) return { reason: "a fixed-length binary needs binarySize", end: undefined };
      return { value: textValue(point, hex(r.slice(pos, size))), end: pos + size };
    }
    case T.variableBinary:
      return variable(point, r, pos, false);
    case T.geolocation:
      return geolocation(point, r, pos);
    case T.modbusTime:
      return time(point, r, pos);
    default:
      return { reason: `pointDataType ${point.pointDataType} is unknown`, end: undefined };
  }
}

/**
 * The values of a binary stream (streamDataType 2) in `payload`: the stream's
 * points read in order, big-endian, each as wide as its pointDataType and
 * binarySize say (layout in docs/data.md). A value that does not fit is
 * refused and so are all after it; a point whose width is unknown (fixed-length
 * type without binarySize, unknown type) is refused with all after it; bytes
 * left over are ignored. Binary payloads carry no device time. Fails only on
 * payloads over {@link MAX_DECODE_PAYLOAD_BYTES}.
 */
export function decodeBinary(stream: StreamSpec, payload: Uint8Array): DecodeResult {
  if (payload.byteLength > MAX_DECODE_PAYLOAD_BYTES)
    return { error: `payload larger than ${MAX_DECODE_PAYLOAD_BYTES} bytes` };
  const r = new Reader(payload);
  const values: DecodedValue[] = [];
  const refused: RefusedValue[] = [];
  let pos = 0;
  let bit = 0; // bits of byte `pos` already taken by bit points
  let rest: string | undefined; // why every later point is refused
  for (const point of stream.points) {
    if (rest !== undefined) {
      refused.push(refusal(point, rest));
      continue;
    }
    try {
      if (point.pointDataType === T.bit) {
        const byte = r.slice(pos, 1)[0]!;
        values.push(numberValue(point, (byte >> (7 - bit)) & 1));
        if (++bit === 8) [pos, bit] = [pos + 1, 0];
        continue;
      }
      if (bit > 0) [pos, bit] = [pos + 1, 0];
      const step = readPoint(point, r, pos);
      if (step.value) values.push(step.value);
      if (step.reason !== undefined) refused.push(refusal(point, step.reason));
      if (step.end === undefined) rest = `follows ${point.dataPointId}, whose length is unknown`;
      else pos = step.end;
    } catch (err) {
      if (!(err instanceof Truncated)) throw err;
      refused.push(refusal(point, err.reason));
      rest = "truncated: the payload ends before this point";
    }
  }
  return { values, refused };
}
