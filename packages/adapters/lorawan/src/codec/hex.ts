import { ok, refuse, type Result } from "./result.js";

/**
 * Parses a fixed-length hexadecimal identifier or key as the registry stores it (DevEUI, AppEUI, AppKey, DevAddr,
 * NetID, gateway EUI): exactly `bytes` bytes written most significant byte first, either case, no separators.
 * `what` names the field in the refusal.
 */
export function parseHex(text: unknown, bytes: number, what: string): Result<Buffer> {
  if (typeof text !== "string") return refuse(`${what} must be a string of ${bytes * 2} hex digits`);
  if (text.length !== bytes * 2 || !/^[0-9a-fA-F]*$/.test(text))
    return refuse(`${what} "${text}" must be ${bytes * 2} hex digits (${bytes} bytes)`);
  return ok(Buffer.from(text, "hex"));
}

/** A 128-bit AES key (AppKey, NwkSKey, AppSKey) from its 32 hex digits. */
export function parseKey(text: unknown, what = "key"): Result<Buffer> {
  return parseHex(text, 16, what);
}

/** Lower-case hex of bytes in the order given: the canonical text form of EUIs, DevAddrs and keys here. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** A copy of `bytes` in reverse order: LoRaWAN sends multi-byte fields least significant byte first. */
export function reversed(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes).reverse();
}
