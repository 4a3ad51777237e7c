/**
 * `pnpm fuzz [cases] [target…]`: runs every target (or the named ones) for `cases` cases each (default 1,000,000)
 * from a random seed, printing per target cases/s, the failure if any (with the seed that reproduces it) and the
 * heap after a forced GC before and after, and a progress line per target every minute (FUZZ_PROGRESS_SECONDS) with
 * the figures so far, so a run stopped early still reports. Exits 1 when any target failed.
 */
import { fuzz } from "./harness.js";
import { TARGETS } from "./targets/index.js";

const args = process.argv.slice(2).filter((a) => a !== "--");
const count = args[0] && /^\d+$/.test(args[0]) ? Number(args.shift()) : 1_000_000;
const progressEveryMs = Number(process.env.FUZZ_PROGRESS_SECONDS ?? 60) * 1000;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2 ** 31;
const chosen = args.length ? TARGETS.filter((t) => args.includes(t.name)) : TARGETS;
const unknown = args.filter((a) => !TARGETS.some((t) => t.name === a));
if (unknown.length) {
  console.error(`unknown target(s) ${unknown.join(", ")}; targets: ${TARGETS.map((t) => t.name).join(", ")}`);
  process.exit(2);
}

console.log(`fuzzing ${chosen.length} target(s), ${count} cases each, seed ${seed}`);
let failed = 0;
for (const target of chosen) {
  let r;
  try {
    const aliveEvery = Math.max(1000, Math.ceil(count / 20));
    r = await fuzz(target, {
      numRuns: count,
      seed,
      aliveEvery: Math.min(aliveEvery, Math.ceil(count / 4)),
      traceHeap: true,
      progressEveryMs,
      onProgress: (p) =>
        console.log(
          `${p.target.padEnd(16)} ${String(p.cases).padStart(9)} cases ${p.seconds.toFixed(1).padStart(7)} s ` +
            `${String(p.casesPerSecond).padStart(7)} cases/s  (under way)  heap ${p.heapMiB} MiB`,
        ),
    });
  } catch (e) {
    failed++;
    console.log(`${target.name.padEnd(16)} stopped: ${e instanceof Error ? e.message : String(e)}`);
    continue;
  }
  console.log(
    `${r.target.padEnd(16)} ${String(r.cases).padStart(9)} cases ${r.seconds.toFixed(1).padStart(7)} s ` +
      `${String(r.casesPerSecond).padStart(7)} cases/s  failures ${r.failure ? 1 : 0}  ` +
      `heap ${r.heapBeforeMiB} MiB -> ${r.heapAfterMiB} MiB`,
  );
  console.log(`${"".padEnd(16)} heap at each live check (MiB): ${r.heapTraceMiB.join(" ")}`);
  if (r.failure) {
    failed++;
    console.log(r.failure);
  }
}
process.exit(failed ? 1 : 0);
