import { randomBytes, randomUUID } from "node:crypto";

const ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A random identifier of `length` letters and digits (e.g. productID, tenantID). */
export function randomCode(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = "";
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4 * 62: no modulo bias
  }
  return out.length === length ? out : randomCode(length);
}

/** A 36-character UUID: generated deviceID and deviceUsername. */
export const uuid = (): string => randomUUID();

/** A device secret: 32 hex characters (128 bits). */
export const randomToken = (): string => randomBytes(16).toString("hex");
