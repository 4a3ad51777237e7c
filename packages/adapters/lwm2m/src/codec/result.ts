/**
 * The outcome of decoding or encoding something that came from outside (a device's datagram, a command's JSON): the
 * value, or why it is refused. Codecs return it instead of throwing, so one malformed payload is answered and logged
 * and never stops the adapter.
 */
export type Result<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A successful {@link Result}. */
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

/** A refused {@link Result} with the reason a person can act on. */
export const refuse = <T = never>(reason: string): Result<T> => ({ ok: false, reason });
