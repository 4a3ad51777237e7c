/**
 * The outcome of parsing or coding configuration and values that come from outside (the registry, a slave, a
 * command): the value, or why it is refused. Codecs return it instead of throwing, so one bad data point or
 * register is logged and never stops the others.
 */
export type Result<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A successful {@link Result}. */
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

/** A refused {@link Result} with the reason a person can act on. */
export const refuse = <T = never>(reason: string): Result<T> => ({ ok: false, reason });
