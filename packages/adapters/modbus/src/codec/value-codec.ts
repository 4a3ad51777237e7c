import { isBitArea, type ModbusArea } from "./register-address.js";
import { ok, refuse, type Result } from "./result.js";

/** The `pointDataType` codes a Modbus point may have (spec: Data point); 21–25 are the Modbus products' own. */
export const MODBUS_POINT_TYPE = {
  signedInteger: 15,
  unsignedInteger: 16,
  float: 17,
  double: 18,
  bit: 19,
  signedLong: 21,
  unsignedLong: 22,
  boolean: 23,
  time: 24,
  modbusFloat: 25,
} as const;

/**
 * Order of the bytes of a value across its registers, named by where the big-endian bytes A B C D of a 32-bit
 * value land: ABCD as sent (Modbus default), CDAB registers reversed ("word swap"), BADC the two bytes of each
 * register swapped, DCBA both. For 64-bit values the word swap reverses all four registers; for 16-bit values
 * only the byte swap matters (BADC and DCBA swap the register's bytes, CDAB is ABCD).
 */
export type ByteOrder = "ABCD" | "CDAB" | "BADC" | "DCBA";

/** All byte orders, to validate configuration. */
export const BYTE_ORDERS: readonly ByteOrder[] = ["ABCD", "CDAB", "BADC", "DCBA"];

/** The byte order when none is configured: big-endian, as the Modbus specification sends registers. */
export const DEFAULT_BYTE_ORDER: ByteOrder = "ABCD";

/** Largest finite single-precision float (FLT_MAX); larger values do not fit a float32 point. */
export const FLOAT32_MAX = 3.4028234663852886e38;

/** Largest time a type 24 point holds: unsigned 32-bit epoch seconds, 2106-02-07T06:28:15Z. */
export const MAX_TIME_SECONDS = 0xffffffff;

/**
 * Where and how a point's value sits in the slave: a whole coil or discrete input; one bit of a register; an
 * integer of 1 or 2 registers; a float of 2 or 4 registers (IEEE 754); a time as unsigned 32-bit epoch seconds.
 */
export type PointLayout =
  | { kind: "coil" }
  | { kind: "bit"; bit: number }
  | { kind: "integer"; signed: boolean; registers: 1 | 2 }
  | { kind: "float"; registers: 2 | 4 }
  | { kind: "time" };

/** A data point as the codec needs it (registry fields `pointDataType` and `binarySize`). */
export interface PointShape {
  pointDataType: number;
  binarySize: number | null;
}

const T = MODBUS_POINT_TYPE;

function fixedWidth(point: PointShape, bytes: number): string | undefined {
  const size = point.binarySize;
  return size === null || size === bytes ? undefined : `binarySize ${size} must be empty or ${bytes} for this type`;
}

/**
 * How a point of this type and `binarySize` sits in `area`, or why it cannot: integers 15/16 take binarySize 2
 * (the default, 1 register) or 4 (2 registers); 17 and 25 are float32, 18 float64, 21/22 32-bit integers, 24 time,
 * whose binarySize must be empty or their width in bytes; 19 and 23 are a coil or discrete input in areas 0/1
 * (binarySize empty or 0) and bit `binarySize` (0..15, default 0, 0 the least significant) of a register in 3/4.
 * Coils and discrete inputs hold only types 19 and 23.
 */
export function pointLayout(point: PointShape, area: ModbusArea): Result<PointLayout> {
  const type = point.pointDataType;
  const size = point.binarySize;
  if (type === T.bit || type === T.boolean) {
    if (isBitArea(area))
      return size === null || size === 0 ? ok({ kind: "coil" }) : refuse(`binarySize ${size} is no bit of a ${area}`);
    const bit = size ?? 0;
    return Number.isInteger(bit) && bit >= 0 && bit <= 15
      ? ok({ kind: "bit", bit })
      : refuse(`binarySize ${size} must be a bit position 0 to 15`);
  }
  if (isBitArea(area)) return refuse(`a ${area} holds one bit: only pointDataType 19 and 23 fit, not ${type}`);
  let problem: string | undefined;
  let layout: PointLayout;
  switch (type) {
    case T.signedInteger:
    case T.unsignedInteger:
      if (size !== null && size !== 2 && size !== 4) return refuse(`binarySize ${size} must be 2 or 4 bytes`);
      layout = { kind: "integer", signed: type === T.signedInteger, registers: size === 4 ? 2 : 1 };
      break;
    case T.signedLong:
    case T.unsignedLong:
      problem = fixedWidth(point, 4);
      layout = { kind: "integer", signed: type === T.signedLong, registers: 2 };
      break;
    case T.float:
    case T.modbusFloat:
      problem = fixedWidth(point, 4);
      layout = { kind: "float", registers: 2 };
      break;
    case T.double:
      problem = fixedWidth(point, 8);
      layout = { kind: "float", registers: 4 };
      break;
    case T.time:
      problem = fixedWidth(point, 4);
      layout = { kind: "time" };
      break;
    default:
      return refuse(`pointDataType ${type} cannot be read over Modbus`);
  }
  return problem === undefined ? ok(layout) : refuse(problem);
}

/** How many units of its area a layout occupies: registers for register areas, 1 for a coil or bit. */
export function layoutCount(layout: PointLayout): number {
  switch (layout.kind) {
    case "coil":
    case "bit":
      return 1;
    case "time":
      return 2;
    default:
      return layout.registers;
  }
}

/**
 * How many 16-bit registers (or, in coil and discrete input areas, bits) a value of `type` and `binarySize`
 * occupies, for read planning; the reason when the pair is invalid. `area` defaults to holding registers.
 */
export function registersFor(type: number, binarySize: number | null, area: ModbusArea = "holdingRegister") {
  const layout = pointLayout({ pointDataType: type, binarySize }, area);
  return layout.ok ? ok(layoutCount(layout.value)) : refuse<number>(layout.reason);
}

/** The value's bytes, most significant first, from registers in `order`; the same swap maps them back. */
function reorder(bytes: Uint8Array, order: ByteOrder): Uint8Array {
  const words = bytes.length / 2;
  const out = new Uint8Array(bytes.length);
  const wordSwap = order === "CDAB" || order === "DCBA";
  const byteSwap = order === "BADC" || order === "DCBA";
  for (let w = 0; w < words; w++) {
    const from = (wordSwap ? words - 1 - w : w) * 2;
    out[w * 2] = bytes[from + (byteSwap ? 1 : 0)]!;
    out[w * 2 + 1] = bytes[from + (byteSwap ? 0 : 1)]!;
  }
  return out;
}

/**
 * The shortest decimal that is the same float32, so 0x42F6E979 reads 123.456, not 123.45600128173828; never one
 * beyond ±FLT_MAX (3.4028235e38 rounds to FLT_MAX but would be refused as a float32 value), else the exact value.
 */
function shortestFloat32(f: number): number {
  for (let digits = 1; digits < 9; digits++) {
    const candidate = Number(f.toPrecision(digits));
    if (Math.fround(candidate) === f && Math.abs(candidate) <= FLOAT32_MAX) return candidate;
  }
  return f;
}

/** A decoded value: a number (time in epoch milliseconds, as the pipeline's JSON uplinks carry it) or a bit. */
export type ModbusValue = number | boolean;

/**
 * Decodes one point's value from a read response: `data` holds registers (0..65535) or, for a coil layout, the
 * bits (booleans or 0/1) as the master returns them; the value starts at index `at`. Times are returned as epoch
 * milliseconds. NaN and infinite floats, short data and registers beyond 16 bits are refused with a reason.
 */
export function decodeValue(
  layout: PointLayout,
  data: ArrayLike<number | boolean>,
  order: ByteOrder = DEFAULT_BYTE_ORDER,
  at = 0,
): Result<ModbusValue> {
  const count = layoutCount(layout);
  if (!Number.isInteger(at) || at < 0 || at + count > data.length)
    return refuse(`response has ${data.length} values, the point needs ${count} at ${at}`);
  if (layout.kind === "coil") {
    const bit = data[at];
    if (bit === true || bit === 1) return ok(true);
    if (bit === false || bit === 0) return ok(false);
    return refuse(`bit ${String(bit)} is neither true nor false`);
  }
  const bytes = new Uint8Array(count * 2);
  for (let i = 0; i < count; i++) {
    const word = data[at + i];
    if (typeof word !== "number" || !Number.isInteger(word) || word < 0 || word > 0xffff)
      return refuse(`register ${String(word)} is not a 16-bit value`);
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  }
  if (layout.kind === "bit") return ok(((bytes[0]! * 256 + bytes[1]!) >> layout.bit) % 2 === 1);
  const view = new DataView(reorder(bytes, order).buffer);
  switch (layout.kind) {
    case "integer":
      if (layout.registers === 1) return ok(layout.signed ? view.getInt16(0) : view.getUint16(0));
      return ok(layout.signed ? view.getInt32(0) : view.getUint32(0));
    case "time":
      return ok(view.getUint32(0) * 1000);
    case "float": {
      const f = layout.registers === 2 ? view.getFloat32(0) : view.getFloat64(0);
      if (!Number.isFinite(f)) return refuse(`the slave sent ${f}, which is no value`);
      return ok(layout.registers === 2 ? shortestFloat32(f) : f);
    }
  }
}

/**
 * What to write for a command value: a coil's state (function code 5 or 15), registers in wire order (6 or 16),
 * or one bit of a register, which the master sets by read-modify-write ({@link applyBit}) or a mask write (22).
 */
export type EncodedWrite =
  | { kind: "coil"; value: boolean }
  | { kind: "registers"; registers: number[] }
  | { kind: "bit"; bit: number; value: boolean };

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

function flag(value: unknown): boolean | undefined {
  if (value === true || value === 1) return true;
  if (value === false || value === 0) return false;
  return undefined;
}

function integerBytes(layout: { signed: boolean; registers: 1 | 2 }, value: unknown): Result<Uint8Array> {
  const bits = layout.registers * 16;
  const min = layout.signed ? -(2 ** (bits - 1)) : 0;
  const max = layout.signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  if (typeof value !== "number" || !Number.isInteger(value)) return refuse("must be an integer");
  if (value < min || value > max) return refuse(`must be from ${min} to ${max}`);
  const view = new DataView(new ArrayBuffer(layout.registers * 2));
  if (layout.registers === 1) view.setUint16(0, value < 0 ? value + 0x10000 : value);
  else view.setUint32(0, value < 0 ? value + 0x100000000 : value);
  return ok(new Uint8Array(view.buffer));
}

function floatBytes(registers: 2 | 4, value: unknown): Result<Uint8Array> {
  if (typeof value !== "number" || !Number.isFinite(value)) return refuse("must be a finite number");
  const view = new DataView(new ArrayBuffer(registers * 2));
  if (registers === 4) view.setFloat64(0, value);
  else if (Math.abs(value) > FLOAT32_MAX) return refuse(`must be within ±${FLOAT32_MAX}`);
  else view.setFloat32(0, value);
  return ok(new Uint8Array(view.buffer));
}

function timeBytes(value: unknown): Result<Uint8Array> {
  let ms: number;
  if (typeof value === "number" && Number.isFinite(value)) ms = value;
  else if (typeof value === "string" && ISO_8601.test(value)) ms = Date.parse(value);
  else return refuse("must be epoch milliseconds or an ISO 8601 date-time with its offset");
  const seconds = Math.floor(ms / 1000);
  if (!(seconds >= 0 && seconds <= MAX_TIME_SECONDS))
    return refuse(`must be from 1970-01-01T00:00:00Z to ${new Date(MAX_TIME_SECONDS * 1000).toISOString()}`);
  const view = new DataView(new ArrayBuffer(4));
  view.setUint32(0, seconds);
  return ok(new Uint8Array(view.buffer));
}

/**
 * Encodes a command's value for writing, the inverse of {@link decodeValue}: booleans take true, false, 1 or 0;
 * integers must be whole and fit their width and sign; floats must be finite (float32 within ±FLT_MAX, rounded to
 * the nearest float32); times are epoch milliseconds or ISO 8601 with an offset, written as whole seconds that must
 * fit unsigned 32 bits. Anything else is refused with a reason, nothing thrown.
 */
export function encodeValue(
  layout: PointLayout,
  value: unknown,
  order: ByteOrder = DEFAULT_BYTE_ORDER,
): Result<EncodedWrite> {
  if (layout.kind === "coil" || layout.kind === "bit") {
    const bit = flag(value);
    if (bit === undefined) return refuse("must be true, false, 1 or 0");
    return ok(layout.kind === "coil" ? { kind: "coil", value: bit } : { kind: "bit", bit: layout.bit, value: bit });
  }
  const bytes =
    layout.kind === "integer"
      ? integerBytes(layout, value)
      : layout.kind === "float"
        ? floatBytes(layout.registers, value)
        : timeBytes(value);
  if (!bytes.ok) return bytes;
  const wire = reorder(bytes.value, order);
  const registers: number[] = [];
  for (let i = 0; i < wire.length; i += 2) registers.push(wire[i]! * 256 + wire[i + 1]!);
  return ok({ kind: "registers", registers });
}

/** The register `current` with bit `bit` (0 the least significant) set to `value`: a read-modify-write's write. */
export function applyBit(current: number, bit: number, value: boolean): number {
  const mask = 1 << bit;
  return value ? (current | mask) & 0xffff : current & ~mask & 0xffff;
}
