import { expect, it } from "vitest";
import { runSoak } from "../bench/soak/run.js";

/**
 * `pnpm soak` shortened to 3 minutes, as CI runs it: the whole fleet on every protocol with churn and a kill -9 every
 * 30 s, and every check of a long run but the memory slopes (3 minutes say nothing of a slope). It offers 5 % of the
 * measured capacity, not half: CI runs it beside the other end-to-end files on the same 2 cores.
 */
it("keeps every acknowledged uplink once, statuses true, commands settled and latency level through 3 minutes of churn and kills", async () => {
  const lines: string[] = [];
  const report = await runSoak({
    minutes: 3,
    fraction: 0.05,
    restChurnPerMinute: 120,
    slopes: false,
    log: (line) => lines.push(line),
  });
  const failed = report.checks.filter((c) => c.ok === false).map((c) => `${c.name}: ${c.figure} (goal ${c.goal})`);
  expect(failed, [...lines, ...report.lines].join("\n")).toEqual([]);
  // Every kind of check ran, with traffic behind it.
  expect(report.checks.filter((c) => c.name.endsWith("acknowledged uplinks lost"))).toHaveLength(6);
  expect(report.checks.some((c) => c.name.startsWith("commands left issued"))).toBe(true);
  expect(report.lines.find((l) => l.startsWith("kills:"))).toMatch(/ at \d+ s/);
}, 420_000);
