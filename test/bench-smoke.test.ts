import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { postgresEngine } from "@iot/registry/test-engines";
import { parseResults, printResult } from "../bench/result.js";

const root = join(import.meta.dirname, "..");
const scripts = Object.keys(
  (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
).filter((s) => s.startsWith("bench:"));
const smoke = (
  JSON.parse(readFileSync(join(root, "bench", "package.json"), "utf8")) as { smoke: Record<string, string> }
).smoke;
/** Benchmarks that run only on PostgreSQL: skipped (test-engines says so) when no server answers and CI is unset. */
const NEEDS_POSTGRES = new Set(["bench:cluster"]);
const dir = mkdtempSync(join(tmpdir(), "bench-smoke-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `pnpm bench`'s runner on one benchmark at its smoke size; answers its table and RESULTS.md. */
async function runner(script: string) {
  const out = join(dir, `${script.replace(":", "-")}.md`);
  const tsx = join(root, "node_modules", ".bin", "tsx");
  const { stdout } = await promisify(execFile)(tsx, ["bench/run-all.ts", "--smoke", "--only", script, "--out", out], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { table: stdout, results: readFileSync(out, "utf8") };
}

describe("benchmarks (smoke run at tiny sizes: they still work; nothing is timed)", () => {
  it("reads back the result lines a benchmark prints, ignoring other output", () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    try {
      printResult({ measure: "m", figure: "1 ms", baseline: "b 2 ms", ratio: 0.51234, goal: "≤ 2 ms", met: true });
    } finally {
      console.log = log;
    }
    expect(parseResults(["noise", ...lines, "RESULT {broken"].join("\n"))).toEqual([
      { measure: "m", figure: "1 ms", baseline: "b 2 ms", ratio: 0.512, goal: "≤ 2 ms", met: true },
    ]);
  });

  it("gives every benchmark smoke arguments", () => {
    expect(scripts.filter((s) => smoke[s] === undefined)).toEqual([]);
  });

  it.each(scripts.filter((s) => !NEEDS_POSTGRES.has(s) || postgresEngine))(
    "%s runs under the runner and its results land in the table and RESULTS.md",
    async (script) => {
      const { table, results } = await runner(script);
      const rows = table.split("\n").filter((l) => l.startsWith(`| ${script} |`));
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => !r.includes("(printed no RESULT line)") && !r.includes("(failed"))).toBe(true);
      expect(results).toMatch(/- CPU: .+, \d+ cores/);
      expect(results).toContain(rows[0]);
    },
    240_000,
  );
});
