import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseResults, printResult, resultsFile } from "../bench/result.js";
import { benchScripts, SMOKE_SHARDS, shardScripts, smokeArgs, smokeRunsOfShard } from "./bench-smoke.js";

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

  it("writes the new table in place of RESULTS.md's head and keeps its later sections", () => {
    const old =
      "# Benchmark results\n\n| old table |\n\n## Back to back, session 9\n\n| a |\n\n## Session 10\n\ntext\n";
    expect(resultsFile(old, "# Benchmark results\n\n| new table |\n")).toBe(
      "# Benchmark results\n\n| new table |\n\n## Back to back, session 9\n\n| a |\n\n## Session 10\n\ntext\n",
    );
    expect(resultsFile(undefined, "# Benchmark results\n\n| new |\n")).toBe("# Benchmark results\n\n| new |\n");
    expect(resultsFile("# Benchmark results\n\n| old |\n", "# B\n\n| new |\n")).toBe("# B\n\n| new |\n");
  });

  it("gives every benchmark smoke arguments", () => {
    expect(benchScripts.filter((s) => smokeArgs[s] === undefined)).toEqual([]);
  });

  it("smoke-runs every benchmark in exactly one shard, and every shard has its test file", () => {
    const shards = Array.from({ length: SMOKE_SHARDS }, (_, i) => shardScripts(i));
    expect(shards.flat().sort()).toEqual([...benchScripts].sort());
    expect(shards.every((s) => s.length > 0)).toBe(true);
    const files = shards.map((_, i) =>
      join(import.meta.dirname, i === 0 ? "bench-smoke.test.ts" : `bench-smoke-${i}.test.ts`),
    );
    expect(files.filter((f) => !existsSync(f))).toEqual([]);
  });

  smokeRunsOfShard(0);
});
