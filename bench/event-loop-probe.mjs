// Preloaded (`node --import`) into the fleet's processes by bench:coap and bench:http: the event-loop delay of the
// load phase. The first SIGUSR2 starts a count, the second writes its percentiles (ms) to
// <os.tmpdir()>/bench-event-loop-<pid>.json for the benchmark to read (closed-loop.ts).
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
let counting = false;
process.on("SIGUSR2", () => {
  counting = !counting;
  if (counting) return histogram.reset();
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  const figures = { p50: ms(histogram.percentile(50)), p95: ms(histogram.percentile(95)), max: ms(histogram.max) };
  writeFileSync(join(tmpdir(), `bench-event-loop-${process.pid}.json`), JSON.stringify(figures));
});
