/**
 * Test support (not a test file): the smoke run of the benchmarks (`pnpm bench --smoke`, tiny sizes, nothing timed),
 * split into shards so that vitest runs them as several files side by side: one file ran every benchmark one after
 * another and was the suite's longest file by far. Each `bench:*` script belongs to exactly one shard (by its place
 * in package.json), so a new benchmark is smoke-run without touching the test files.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { postgresEngine } from "@iot/registry/test-engines";

const root = join(import.meta.dirname, "..");

/** Every `bench:*` script of the root package.json, in its order. */
export const benchScripts = Object.keys(
  (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
).filter((s) => s.startsWith("bench:"));

/** bench/package.json's smoke arguments, by script. */
export const smokeArgs = (
  JSON.parse(readFileSync(join(root, "bench", "package.json"), "utf8")) as { smoke: Record<string, string> }
).smoke;

/** Benchmarks that run only on PostgreSQL: skipped (test-engines says so) when no server answers and CI is unset. */
const NEEDS_POSTGRES = new Set(["bench:cluster"]);

/** How many test files share the smoke run (bench-smoke.test.ts is shard 0, bench-smoke-<n>.test.ts shard n). */
export const SMOKE_SHARDS = 4;

/** The scripts of shard `shard` (0 ≤ shard < SMOKE_SHARDS). */
export function shardScripts(shard: number): string[] {
  return benchScripts.filter((_, i) => i % SMOKE_SHARDS === shard);
}

/**
 * Declares, in the calling test file, one test per benchmark of `shard`: it runs under `pnpm bench`'s runner at its
 * smoke size, and its result lines land in the runner's table and RESULTS.md.
 */
export function smokeRunsOfShard(shard: number): void {
  const dir = mkdtempSync(join(tmpdir(), "bench-smoke-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs the runner on one benchmark at its smoke size; answers its table and RESULTS.md. */
  async function runner(script: string) {
    const out = join(dir, `${script.replace(":", "-")}.md`);
    const tsx = join(root, "node_modules", ".bin", "tsx");
    const { stdout } = await promisify(execFile)(tsx, ["bench/run-all.ts", "--smoke", "--only", script, "--out", out], {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { table: stdout, results: readFileSync(out, "utf8") };
  }

  it.each(shardScripts(shard).filter((s) => !NEEDS_POSTGRES.has(s) || postgresEngine))(
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
}
