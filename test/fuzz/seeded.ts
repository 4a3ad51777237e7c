/** The test suite's seeded run of a target: a fixed seed and a few thousand cases, asserted to all hold. */
import { expect, it } from "vitest";
import { fuzz, type FuzzTarget } from "./harness.js";

/** Seed of every target's run in the test suite, so a failure reproduces. */
export const SUITE_SEED = 0x18_2026;

/** Heap a seeded run may keep after its last case, MiB: far above noise, far below a per-case leak. */
const MAX_HEAP_GROWTH_MIB = 24;

/** Declares the vitest case of `target`: `cases` seeded cases, none failing, the live device fine, the heap flat. */
export function seededFuzz<T>(target: FuzzTarget<T>, cases = 2000, timeoutMs = 60_000): void {
  it(
    `${target.name}: ${target.description}`,
    async () => {
      const report = await fuzz(target, { numRuns: cases, seed: SUITE_SEED, aliveEvery: Math.ceil(cases / 4) });
      expect(report.failure).toBeUndefined();
      expect(report.cases).toBeGreaterThanOrEqual(cases);
      expect(report.heapAfterMiB - report.heapBeforeMiB).toBeLessThan(MAX_HEAP_GROWTH_MIB);
    },
    timeoutMs,
  );
}
