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
 * Beside each rate: the CPU per 10,000 batched uplinks of this process and of
 * PostgreSQL's backends (store-costs.ts), and the disk bytes per stored uplink
 * (the data folder, or the schema's tables with indexes) beside the payload's
 * size. With both engines, the last line is PostgreSQL's batched rate against
 * SQLite's in this run.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRegistryStore, type Store, type StoreOptions, type UplinkRecord } from "@iot/registry";
import { printResult } from "./result.js";
import { positiveInt } from "./figures.js";
import { backendCpu, folderBytes, schemaBytes, selfCpu } from "./store-costs.js";

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

/** The batched rate of each engine, for the ratio. */
const batchedRates = new Map<string, number>();

/** Bytes the engine's storage holds now: `dataDir`'s files on SQLite (the store closed), the schema's tables. */
type Bytes = (store: Store | undefined) => Promise<number>;

async function bench(label: string, open: () => Promise<Store>, bytes: Bytes): Promise<void> {
  // Opened and closed once first: SQLite's migrations then sit in the database file, not in a WAL that the close at
  // the end folds in (which made the growth of a small run negative).
  await (await open()).close();
  const since = new Date();
  const store = await open();
  let closed = false;
  try {
    const bytesBefore = await bytes(store);
    const naive = await measure(naiveTotal, (seq) =>
      store.db
        .insertInto("deviceEvents")
        .values({ ...uplink("naive", seq), createAt: Date.now() })
        .execute(),
    );
    const backends = backendCpu(store, since);
    await backends.start();
    const cpuBefore = selfCpu();
    const batched = await measure(total, (seq) => store.uplinks.write(uplink("batched", seq)));
    const nodeCpu = selfCpu() - cpuBefore;
    const serverCpu = await backends.stop();
    batchedRates.set(label, batched);
    const stored = await countEvents(store);
    if (stored !== total + naiveTotal)
      throw new Error(`${label}: ${stored} rows stored, expected ${total + naiveTotal}`);
    const fmt = (x: number) => Math.round(x).toLocaleString("en-US").padStart(9);
    console.log(`${label.padEnd(10)} batched: ${fmt(batched)} uplinks/s (${total} uplinks)`);
    console.log(
      `${label.padEnd(10)} naive:   ${fmt(naive)} uplinks/s (${naiveTotal} uplinks, one INSERT per transaction)`,
    );
    console.log(`${label.padEnd(10)} ratio:   ${(batched / naive).toFixed(1)}x`);
    const per10k = (s: number) => ((s * 10_000) / total).toFixed(3);
    console.log(
      `${label.padEnd(10)} CPU s per 10k batched uplinks: this process ${per10k(nodeCpu)}` +
        (store.engine === "postgres" ? `, PostgreSQL backends ${per10k(serverCpu)}` : ""),
    );
    if (store.engine === "sqlite") {
      await store.close();
      closed = true;
    }
    const perUplink = ((await bytes(closed ? undefined : store)) - bytesBefore) / stored;
    console.log(
      `${label.padEnd(10)} disk:    ${perUplink.toFixed(0)} bytes per uplink (payload ${payload.length} bytes)`,
    );
    printResult({
      measure: `batched uplink writes (${label}, ${total})`,
      figure: `${Math.round(batched)} uplinks/s`,
      baseline: `one INSERT per transaction ${Math.round(naive)} uplinks/s`,
      ratio: batched / naive,
      goal: "",
      met: null,
    });
    printResult({
      measure: `disk per stored uplink (${label}, ${stored} uplinks of ${payload.length}-byte payloads)`,
      figure: `${perUplink.toFixed(0)} bytes`,
      baseline: `payload ${payload.length} bytes`,
      ratio: perUplink / payload.length,
      goal: `≤ ${2 * payload.length + 40} bytes (twice the payload + 40)`,
      met: perUplink <= 2 * payload.length + 40,
    });
  } finally {
    if (!closed) await store.close();
  }
}

const options: Omit<StoreOptions, "dataDir"> = {}; // the store's default batch size and delay
const dataDir = mkdtempSync(join(tmpdir(), "iot-bench-"));
try {
  await bench(
    "SQLite",
    () => openRegistryStore({ ...options, dataDir }),
    () => Promise.resolve(folderBytes(dataDir)),
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

const pgUrl = process.env.IOT_BENCH_DATABASE_URL;
if (pgUrl !== undefined && pgUrl !== "") {
  const pgSchema = `bench_${randomBytes(4).toString("hex")}`;
  const open = () => openRegistryStore({ ...options, dataDir: "", databaseUrl: pgUrl, pgSchema });
  try {
    await bench("PostgreSQL", open, (store) => schemaBytes(store!));
  } finally {
    const cleaner = await open();
    await cleaner.db.schema.dropSchema(pgSchema).cascade().execute();
    await cleaner.close();
  }
}

const [sqlite, postgres] = [batchedRates.get("SQLite"), batchedRates.get("PostgreSQL")];
if (sqlite !== undefined && postgres !== undefined) {
  console.log(`PostgreSQL/SQLite batched: ${(postgres / sqlite).toFixed(2)} (goal ≥ 0.8)`);
  printResult({
    measure: `batched uplink writes, PostgreSQL against SQLite (${total})`,
    figure: `${Math.round(postgres)} uplinks/s`,
    baseline: `SQLite ${Math.round(sqlite)} uplinks/s`,
    ratio: postgres / sqlite,
    goal: "≥ 0.8",
    met: postgres / sqlite >= 0.8,
  });
}
