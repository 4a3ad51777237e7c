/**
 * The outcome of decoding bytes from the network: the value, or why they are refused. Codecs return it instead of
 * throwing, so a malformed datagram is dropped and never stops the server.
 */
export type Result<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A successful {@link Result}. */
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

/** A refused {@link Result} with the reason a person can act on. */
export const refuse = <T = never>(reason: string): Result<T> => ({ ok: false, reason });

/** The package's one error: a handshake that ends with the alert (RFC 5246 §7.2) it names. */
export class DtlsError extends Error {
  constructor(
    message: string,
    readonly alert: number,
  ) {
    super(message);
    this.name = "DtlsError";
  }
}
