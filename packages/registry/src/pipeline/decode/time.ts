/** Latest instant a JavaScript Date holds, epoch ms (ECMA-262 §21.4.1.1); later times are refused. */
export const MAX_EPOCH_MS = 8.64e15;

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/**
 * The epoch milliseconds of a time sent as a number of milliseconds since
 * 1970-01-01T00:00:00Z (fractions dropped) or as an ISO 8601 date-time string
 * with its offset (`2024-05-01T12:00:00Z`, `2024-05-01T14:00:00.250+02:00`);
 * undefined for anything else: other types, no offset (ambiguous), a date or
 * clock field out of range (February 30, 24:00), before 1970 or after {@link MAX_EPOCH_MS}.
 */
export function epochMs(raw: unknown): number | undefined {
  let ms: number;
  if (typeof raw === "number") ms = Math.floor(raw);
  else if (typeof raw === "string") {
    const m = ISO_8601.exec(raw);
    if (!m) return undefined;
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map((f) => Number(f ?? 0));
    if (month === undefined || month < 1 || month > 12 || day === undefined || day < 1) return undefined;
    if (day > new Date(Date.UTC(year ?? 0, month, 0)).getUTCDate()) return undefined;
    if ((hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59) return undefined;
    ms = Date.parse(raw);
  } else return undefined;
  return Number.isFinite(ms) && ms >= 0 && ms <= MAX_EPOCH_MS ? ms : undefined;
}
