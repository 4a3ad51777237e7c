/** Width of an integer point without binarySize in a binary payload, bytes. */
export const DEFAULT_INTEGER_BYTES = 4;

/** The smallest and largest integer of `bytes` bytes (1 to 8), clipped to the safe integers of JavaScript (±2^53−1). */
export function integerBounds(signed: boolean, bytes: number): { min: number; max: number } {
  const bits = BigInt(bytes * 8);
  const min = signed ? -(1n << (bits - 1n)) : 0n;
  const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  const safe = BigInt(Number.MAX_SAFE_INTEGER);
  return { min: Number(min < -safe ? -safe : min), max: Number(max > safe ? safe : max) };
}

/** Why `bytes` is no integer width (whole, 1 to 8), or undefined when it is one. */
export function integerSizeProblem(bytes: number): string | undefined {
  return Number.isInteger(bytes) && bytes >= 1 && bytes <= 8 ? undefined : "integer binarySize must be 1 to 8 bytes";
}
