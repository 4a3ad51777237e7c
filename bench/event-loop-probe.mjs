// Preloaded (`node --import`) into the fleet's processes by bench:coap and bench:http: the event-loop delay of the
// load phase. The first SIGUSR2 starts a count, the second writes its percentiles (ms) to
// <os.tmpdir()>/bench-event-loop-<pid>.json for the benchmark to read (closed-loop.ts).
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";

// Sampled every 10 ms: at 1 ms the probe's timer cost the benchmark 10-25 % more CPU per request in every process on
// the machine, the load generator included (bench:http, alternated with the benchmark without the probe). The
// histogram holds the whole interval, so the resolution is taken off each figure.
const RESOLUTION_MS = 10;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();
let counting = false;
process.on("SIGUSR2", () => {
  counting = !counting;
  if (counting) return histogram.reset();
  const ms = (ns) => Math.max(0, Math.round(ns / 1e4 - RESOLUTION_MS * 100) / 100);
  const figures = { p50: ms(histogram.percentile(50)), p95: ms(histogram.percentile(95)), max: ms(histogram.max) };
  writeFileSync(join(tmpdir(), `bench-event-loop-${process.pid}.json`), JSON.stringify(figures));
});
