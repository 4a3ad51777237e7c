/**
 * `pnpm soak [minutes=60]`: the whole fleet under churn and faults for that long, then a table of every process's
 * memory and event loop, ack latencies per window and the end checks; exits 1 when a check fails.
 *
 *   SOAK_FRACTION   share of the measured capacity offered in all (default 0.5; see settings.ts)
 *   SOAK_REST_CHURN devices created, blocked and deleted through REST per minute (default 300)
 *   IOT_BENCH_DATABASE_URL  a PostgreSQL server: two central nodes on a database made there for the run
 */
import { positiveInt } from "../figures.js";
import { runSoak } from "./run.js";

const minutes = Number(process.argv[2] ?? 60);
if (!(minutes > 0)) throw new Error(`expected the run's minutes, got ${process.argv[2]}`);
const fraction = Number(process.env.SOAK_FRACTION ?? 0.5);
if (!(fraction > 0 && fraction <= 1))
  throw new Error(`SOAK_FRACTION must be in (0, 1], got ${process.env.SOAK_FRACTION}`);
const report = await runSoak({
  minutes,
  fraction,
  restChurnPerMinute: positiveInt(process.env.SOAK_REST_CHURN, 300),
  ...(process.env.IOT_BENCH_DATABASE_URL ? { databaseUrl: process.env.IOT_BENCH_DATABASE_URL } : {}),
});
for (const line of report.lines) console.log(line);
console.log(report.ok ? "soak: every check met" : "soak: a check FAILED");
process.exit(report.ok ? 0 : 1);
