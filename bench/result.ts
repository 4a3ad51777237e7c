/**
 * The line every benchmark prints once per measure, so that `pnpm bench` (bench/run-all.ts) can gather one table
 * without parsing each script's prose: `RESULT {"measure": …, "figure": …, …}` on a line of its own.
 */

/** One measure of a benchmark: its figure beside the baseline measured in the same run, and the goal. */
export interface BenchResult {
  /** What was measured, e.g. "REST first page p95 (SQLite, 100k devices)". */
  measure: string;
  /** The figure with its unit, e.g. "4.1 ms". */
  figure: string;
  /** The baseline measured in the same run, with its unit; "" when the measure has none. */
  baseline: string;
  /** figure / baseline (or baseline / figure for rates: always "ours against the reference"); null when none. */
  ratio: number | null;
  /** The goal as text, e.g. "p95 ≤ 20 ms"; "" when none is set. */
  goal: string;
  /** Whether the goal is met; null when there is no goal. */
  met: boolean | null;
}

/** Marks a result line; the runner reads only lines starting with it. */
export const RESULT_PREFIX = "RESULT ";

/** Prints one result line (stdout). */
export function printResult(result: BenchResult): void {
  const ratio = result.ratio === null || !Number.isFinite(result.ratio) ? null : Number(result.ratio.toFixed(3));
  console.log(RESULT_PREFIX + JSON.stringify({ ...result, ratio }));
}

/** Reads the result lines out of a benchmark's output; other lines and malformed ones are ignored. */
export function parseResults(output: string): BenchResult[] {
  const results: BenchResult[] = [];
  for (const line of output.split("\n")) {
    if (!line.startsWith(RESULT_PREFIX)) continue;
    try {
      const r = JSON.parse(line.slice(RESULT_PREFIX.length)) as Partial<BenchResult>;
      if (typeof r.measure === "string" && typeof r.figure === "string")
        results.push({
          measure: r.measure,
          figure: r.figure,
          baseline: typeof r.baseline === "string" ? r.baseline : "",
          ratio: typeof r.ratio === "number" ? r.ratio : null,
          goal: typeof r.goal === "string" ? r.goal : "",
          met: typeof r.met === "boolean" ? r.met : null,
        });
    } catch {
      // not a result line after all
    }
  }
  return results;
}

/**
 * RESULTS.md after a run: `latest` (the heading, the machine and the new table) in place of the file's head, and the
 * file's later sections (each from a line starting with "## ": back-to-back comparisons written by hand) kept after
 * it, so that a run does not erase them.
 */
export function resultsFile(existing: string | undefined, latest: string): string {
  const sections = existing?.search(/^## /m) ?? -1;
  const kept = sections >= 0 ? existing!.slice(sections) : "";
  return kept ? `${latest.trimEnd()}\n\n${kept}` : `${latest.trimEnd()}\n`;
}
