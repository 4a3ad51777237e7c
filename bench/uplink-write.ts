/**
 * Uplink write throughput: the batched UplinkWriter against the naive way
 * (one INSERT per uplink, each its own autocommit transaction), measured in
 * the same run on the same machine, so the ratio is meaningful even when the
 * absolute figures depend on the disk's fsync speed.
 *
 *   pnpm bench:uplinks [N=20000] [naiveN=min(N,2000)]
 *
 * SQLite always (a temp dir, removed afterwards); PostgreSQL too when
 * IOT_BENCH_DATABASE_URL is set (a throw-away schema, dropped afterwards).
 * Both sides offer all their uplinks at once, like a busy adapter stream.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRegistryStore, type Store, type StoreOptions, type UplinkRecord } from "@iot/registry";
import { printResult } from "./result.js";
import { positiveInt } from "./figures.js";

const total = positiveInt(process.argv[2], 20_000);
const naiveTotal = positiveInt(process.argv[3], Math.min(total, 2_000));
const payload = randomBytes(64);

function uplink(run: string, seq: number): UplinkRecord {
  return {
    msgKey: `${run}:${seq}`,
    tenantId: "bench",
    deviceIntId: 1 + (seq % 100),
    gatewayIntId: null,
    topic: "up/telemetry",
    payload,
    ip: "127.0.0.1",
    qos: 1,
    msgTime: Date.now(),
  };
}

/** Uplinks per second for `n` writes done by `write`, all offered at once. */
async function measure(n: number, write: (seq: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await Promise.all(Array.from({ length: n }, (_, seq) => write(seq)));
  return n / ((performance.now() - started) / 1000);
}

async function countEvents(store: Store): Promise<number> {
  const { n } = await store.db
    .selectFrom("deviceEvents")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(n);
}

async function bench(label: string, open: () => Promise<Store>): Promise<void> {
  const store = await open();
  try {
    const naive = await measure(naiveTotal, (seq) =>
      store.db
        .insertInto("deviceEvents")
        .values({ ...uplink("naive", seq), createAt: Date.now() })
        .execute(),
    );
    const batched = await measure(total, (seq) => store.uplinks.write(uplink("batched", seq)));
    const stored = await countEvents(store);
    if (stored !== total + naiveTotal)
      throw new Error(`${label}: ${stored} rows stored, expected ${total + naiveTotal}`);
    const fmt = (x: number) => Math.round(x).toLocaleString("en-US").padStart(9);
    console.log(`${label.padEnd(10)} batched: ${fmt(batched)} uplinks/s (${total} uplinks)`);
    console.log(
      `${label.padEnd(10)} naive:   ${fmt(naive)} uplinks/s (${naiveTotal} uplinks, one INSERT per transaction)`,
    );
    console.log(`${label.padEnd(10)} ratio:   ${(batched / naive).toFixed(1)}x`);
    printResult({
      measure: `batched uplink writes (${label}, ${total})`,
      figure: `${Math.round(batched)} uplinks/s`,
      baseline: `one INSERT per transaction ${Math.round(naive)} uplinks/s`,
      ratio: batched / naive,
      goal: "",
      met: null,
    });
  } finally {
    await store.close();
  }
}

const options: Omit<StoreOptions, "dataDir"> = {}; // the store's default batch size and delay
const dataDir = mkdtempSync(join(tmpdir(), "iot-bench-"));
try {
  await bench("SQLite", () => openRegistryStore({ ...options, dataDir }));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const pgUrl = process.env.IOT_BENCH_DATABASE_URL;
if (pgUrl !== undefined && pgUrl !== "") {
  const pgSchema = `bench_${randomBytes(4).toString("hex")}`;
  const open = () => openRegistryStore({ ...options, dataDir: "", databaseUrl: pgUrl, pgSchema });
  try {
    await bench("PostgreSQL", open);
  } finally {
    const cleaner = await open();
    await cleaner.db.schema.dropSchema(pgSchema).cascade().execute();
    await cleaner.close();
  }
}
