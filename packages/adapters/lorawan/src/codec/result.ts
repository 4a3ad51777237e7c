/**
 * The outcome of decoding or building something that comes from outside (a gateway datagram, a radio frame, a
 * registry record): the value, or why it is refused. Codecs return it instead of throwing, so one bad datagram or
 * frame is counted and logged and never stops the adapter.
 */
export type Result<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A successful {@link Result}. */
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

/** A refused {@link Result} with the reason a person can act on. */
export const refuse = <T = never>(reason: string): Result<T> => ({ ok: false, reason });
