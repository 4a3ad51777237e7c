/** What every benchmark needs to read its arguments and summarise its samples. */

/** A positive whole number from the command line, or `fallback` when not given. */
export function positiveInt(arg: string | undefined, fallback: number): number {
  if (arg === undefined) return fallback;
  const n = Number(arg);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`expected a positive integer, got ${arg}`);
  return n;
}

/** The p-th percentile (0–100) of the values, nearest rank; NaN without values. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
