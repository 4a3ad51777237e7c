/** A CoAP uint option value (RFC 7252 §3.2): big-endian, no leading zero bytes, 0 is the empty value. */
export function encodeUint(n: number): Buffer {
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
  return Buffer.from(bytes);
}

/** Reads a CoAP uint option value (any length; callers bound it). */
export function decodeUint(value: Uint8Array): number {
  return value.reduce((n, b) => n * 256 + b, 0);
}
