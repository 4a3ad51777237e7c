/** Where a command writes: stdout for results, stderr for messages (both replaceable in tests). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** The process's own streams. */
export const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

const cell = (v: unknown): string => {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v) ?? "";
};

/**
 * Prints records: JSON (one document) with `json`, else a table of `columns` (the columns present when none are
 * named), padded, one record a line.
 */
export function printRecords(io: Io, records: readonly Record<string, unknown>[], json: boolean, columns?: string[]) {
  if (json) return io.out(`${JSON.stringify(records, null, 2)}\n`);
  const cols = columns ?? [...new Set(records.flatMap((r) => Object.keys(r)))];
  const rows = [cols, ...records.map((r) => cols.map((c) => cell(r[c])))];
  const widths = cols.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    io.out(
      `${r
        .map((c, i) => c.padEnd(widths[i]!))
        .join("  ")
        .trimEnd()}\n`,
    );
}

/** Prints one record: JSON with `json`, else `key: value` lines. */
export function printRecord(io: Io, record: Record<string, unknown>, json: boolean) {
  if (json) return io.out(`${JSON.stringify(record, null, 2)}\n`);
  for (const [k, v] of Object.entries(record)) io.out(`${k}: ${cell(v)}\n`);
}
