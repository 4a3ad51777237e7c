import { ok, refuse, type Result } from "./result.js";
import { integerInRange, type ObjectLink, type ResourceType, type TypedValue } from "./typed-value.js";

/**
 * Values inside OMA-TLV (OMA-TS-LightweightM2M-V1_0 §6.4.3 and Appendix C, Core V1_1 §7.4): big-endian integers of
 * 1, 2, 4 or 8 bytes (signed; unsigned in 1.1), IEEE 754 floats of 4 or 8 bytes, a boolean byte 0 or 1, UTF-8
 * strings, raw opaque bytes, time as a signed integer of seconds, object links as two 16-bit ids.
 */

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** A signed integer of 1, 2, 4 or 8 bytes. */
export function readTlvInteger(bytes: Uint8Array): Result<bigint> {
  const v = view(bytes);
  switch (bytes.length) {
    case 1:
      return ok(BigInt(v.getInt8(0)));
    case 2:
      return ok(BigInt(v.getInt16(0)));
    case 4:
      return ok(BigInt(v.getInt32(0)));
    case 8:
      return ok(v.getBigInt64(0));
    default:
      return refuse(`an integer is 1, 2, 4 or 8 bytes, not ${bytes.length}`);
  }
}

/** An unsigned integer of 1, 2, 4 or 8 bytes (LwM2M 1.1 Unsigned Integer). */
export function readTlvUnsigned(bytes: Uint8Array): Result<bigint> {
  const v = view(bytes);
  switch (bytes.length) {
    case 1:
      return ok(BigInt(v.getUint8(0)));
    case 2:
      return ok(BigInt(v.getUint16(0)));
    case 4:
      return ok(BigInt(v.getUint32(0)));
    case 8:
      return ok(v.getBigUint64(0));
    default:
      return refuse(`an unsigned integer is 1, 2, 4 or 8 bytes, not ${bytes.length}`);
  }
}

/** A float of 4 (single) or 8 (double precision) bytes. */
export function readTlvFloat(bytes: Uint8Array): Result<number> {
  if (bytes.length === 4) return ok(view(bytes).getFloat32(0));
  if (bytes.length === 8) return ok(view(bytes).getFloat64(0));
  return refuse(`a float is 4 or 8 bytes, not ${bytes.length}`);
}

/** A boolean: one byte, 0 false or 1 true; anything else is refused. */
export function readTlvBoolean(bytes: Uint8Array): Result<boolean> {
  if (bytes.length !== 1) return refuse(`a boolean is 1 byte, not ${bytes.length}`);
  if (bytes[0]! > 1) return refuse(`a boolean byte is 0 or 1, not ${bytes[0]}`);
  return ok(bytes[0] === 1);
}

/** A UTF-8 string; invalid UTF-8 is refused rather than patched with replacement characters. */
export function readTlvString(bytes: Uint8Array): Result<string> {
  try {
    return ok(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return refuse("a string is not valid UTF-8");
  }
}

/** An object link: 16-bit object id then 16-bit instance id. */
export function readTlvObjlnk(bytes: Uint8Array): Result<ObjectLink> {
  if (bytes.length !== 4) return refuse(`an object link is 4 bytes, not ${bytes.length}`);
  const v = view(bytes);
  return ok({ objectId: v.getUint16(0), instanceId: v.getUint16(2) });
}

/** A time: a signed integer of seconds since 1970, within ±2^53 so it stays a number. */
export function readTlvTime(bytes: Uint8Array): Result<number> {
  const n = readTlvInteger(bytes);
  if (!n.ok) return refuse(`a time is 1, 2, 4 or 8 bytes, not ${bytes.length}`);
  const seconds = Number(n.value);
  return Number.isSafeInteger(seconds) ? ok(seconds) : refuse(`time ${n.value} s is beyond ±2^53`);
}

/** Reads a TLV value as the given type; `none` (an executable resource) has no value to read. */
export function readTlvValue(bytes: Uint8Array, type: ResourceType): Result<TypedValue> {
  const wrap = <T>(r: Result<T>, make: (v: T) => TypedValue): Result<TypedValue> => (r.ok ? ok(make(r.value)) : r);
  switch (type) {
    case "string":
    case "corelnk":
      return wrap(readTlvString(bytes), (value) => ({ type, value }));
    case "integer":
      return wrap(readTlvInteger(bytes), (value) => ({ type, value }));
    case "unsignedInteger":
      return wrap(readTlvUnsigned(bytes), (value) => ({ type, value }));
    case "float":
      return wrap(readTlvFloat(bytes), (value) => ({ type, value }));
    case "boolean":
      return wrap(readTlvBoolean(bytes), (value) => ({ type, value }));
    case "time":
      return wrap(readTlvTime(bytes), (value) => ({ type, value }));
    case "objlnk":
      return wrap(readTlvObjlnk(bytes), (value) => ({ type, value }));
    case "opaque":
      return ok({ type, value: Uint8Array.from(bytes) });
    case "none":
      return refuse("an executable resource has no value");
  }
}

/**
 * The TLV value bytes of a typed value: integers and time in the fewest of 1, 2, 4, 8 bytes that hold them, floats
 * in 4 bytes when single precision is exact and 8 otherwise, booleans as 0/1, strings as UTF-8. Refuses integers out
 * of their type's range, time beyond ±2^53 or not whole, and object link ids beyond 0..65535.
 */
export function encodeTlvValue(typed: TypedValue): Result<Uint8Array> {
  switch (typed.type) {
    case "string":
    case "corelnk":
      return ok(new TextEncoder().encode(typed.value));
    case "integer":
      if (!integerInRange(typed.value, "integer")) return refuse(`integer ${typed.value} is beyond 64-bit signed`);
      return ok(signedBytes(typed.value));
    case "unsignedInteger":
      if (!integerInRange(typed.value, "unsignedInteger"))
        return refuse(`unsigned integer ${typed.value} is beyond 0..2^64-1`);
      return ok(unsignedBytes(typed.value));
    case "time":
      if (!Number.isSafeInteger(typed.value)) return refuse(`time ${typed.value} is not whole seconds within ±2^53`);
      return ok(signedBytes(BigInt(typed.value)));
    case "float": {
      const single = Math.fround(typed.value) === typed.value;
      const out = new Uint8Array(single ? 4 : 8);
      if (single) view(out).setFloat32(0, typed.value);
      else view(out).setFloat64(0, typed.value);
      return ok(out);
    }
    case "boolean":
      return ok(Uint8Array.of(typed.value ? 1 : 0));
    case "opaque":
      return ok(Uint8Array.from(typed.value));
    case "objlnk": {
      const { objectId, instanceId } = typed.value;
      if (![objectId, instanceId].every((id) => Number.isInteger(id) && id >= 0 && id <= 65535))
        return refuse(`object link ${objectId}:${instanceId} has an id beyond 0..65535`);
      const out = new Uint8Array(4);
      view(out).setUint16(0, objectId);
      view(out).setUint16(2, instanceId);
      return ok(out);
    }
  }
}

function signedBytes(value: bigint): Uint8Array {
  const width =
    value >= -128n && value <= 127n
      ? 1
      : value >= -32768n && value <= 32767n
        ? 2
        : value >= -(2n ** 31n) && value < 2n ** 31n
          ? 4
          : 8;
  const out = new Uint8Array(width);
  const v = view(out);
  if (width === 1) v.setInt8(0, Number(value));
  else if (width === 2) v.setInt16(0, Number(value));
  else if (width === 4) v.setInt32(0, Number(value));
  else v.setBigInt64(0, value);
  return out;
}

function unsignedBytes(value: bigint): Uint8Array {
  const width = value <= 0xffn ? 1 : value <= 0xffffn ? 2 : value <= 0xffffffffn ? 4 : 8;
  const out = new Uint8Array(width);
  const v = view(out);
  if (width === 1) v.setUint8(0, Number(value));
  else if (width === 2) v.setUint16(0, Number(value));
  else if (width === 4) v.setUint32(0, Number(value));
  else v.setBigUint64(0, value);
  return out;
}
