/**
 * Device import throughput: `POST /devices_import`'s work (parse the CSV, then every row through the device body
 * checks and `createDevice`'s rules) against a plain bulk insert of the same rows (multi-row INSERTs of 500 in one
 * transaction, no checks), in the same run on the same machine.
 *
 *   pnpm bench:import [N=100000]
 *
 * SQLite (a temp dir, removed afterwards); PostgreSQL too when IOT_BENCH_DATABASE_URL is set (a throw-away schema,
 * dropped afterwards). The target (issue 15): 100,000 devices in at most 30 s on SQLite.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseDeviceCsv, runDeviceImport } from "@iot/api";
import {
  bootstrapAdmin,
  createProduct,
  createTask,
  openRegistryStore,
  type Caller,
  type Store,
  type StoreOptions,
} from "@iot/registry";
import { printResult } from "./result.js";

const total = Number(process.argv[2] ?? 100_000);
if (!Number.isSafeInteger(total) || total <= 0) throw new Error(`expected a positive integer, got ${process.argv[2]}`);

async function fleet(options: StoreOptions) {
  const store = await openRegistryStore(options);
  const boot = await bootstrapAdmin(store.db, { username: "bench", password: "bench-pass-1", tenantName: "B" });
  const caller: Caller = {
    userIntId: 1,
    username: "bench",
    tenantId: boot.tenantId!,
    role: "admin",
    serviceAdmin: true,
  };
  const product = await createProduct(store.db, caller, { productName: "Meters", cloudProtocol: 1 });
  return { store, caller, product };
}

function csvOf(productId: string, run: string): string {
  const lines = ["deviceName,product,authType,upLinkSystem,deviceID,deviceUsername,token,IMEI,description"];
  for (let i = 0; i < total; i++)
    lines.push(`meter ${i},${productId},1,1,${run}-${i},${run}-u${i},tok-${run}-${i},,bench row ${i}`);
  return lines.join("\n");
}

async function timeImport(store: Store, caller: Caller, csv: string) {
  const started = performance.now();
  const { rows } = parseDeviceCsv(new TextEncoder().encode(csv));
  const task = await createTask(store.db, caller, { kind: "devices_import" });
  const result = await runDeviceImport({ store, caller, taskIntId: task.id, rows });
  const seconds = (performance.now() - started) / 1000;
  if (result.created !== total)
    throw new Error(`created ${result.created} of ${total}: ${JSON.stringify(result.errors[0])}`);
  return seconds;
}

async function timeBulk(store: Store, caller: Caller, productIntId: number, run: string) {
  const started = performance.now();
  await store.db.transaction().execute(async (tx) => {
    for (let i = 0; i < total; i += 500) {
      const rows = [];
      for (let j = i; j < Math.min(total, i + 500); j++)
        rows.push({
          tenantId: caller.tenantId,
          userIntId: caller.userIntId,
          productIntId,
          deviceName: `meter ${j}`,
          deviceType: 1,
          upLinkSystem: 1,
          authType: 1,
          deviceId: `${run}-${j}`,
          deviceUsername: `${run}-u${j}`,
          token: `tok-${run}-${j}`,
          description: `bench row ${j}`,
          blocked: 0,
          deviceStatus: 0,
          createAt: Date.now(),
          updateAt: null,
        });
      await tx.insertInto("devices").values(rows).execute();
    }
  });
  return (performance.now() - started) / 1000;
}

async function bench(engine: string, options: () => StoreOptions, cleanup: () => Promise<void>) {
  try {
    const run = randomBytes(3).toString("hex");
    const a = await fleet(options());
    const importS = await timeImport(a.store, a.caller, csvOf(a.product.productId, run));
    await a.store.close();
    const b = await fleet(options());
    const bulkS = await timeBulk(b.store, b.caller, b.product.id, `${run}b`);
    await b.store.close();
    const rate = (s: number) => Math.round(total / s).toLocaleString("en");
    console.log(
      `${engine}: import of ${total.toLocaleString("en")} devices ${importS.toFixed(1)} s (${rate(importS)} rows/s); ` +
        `plain bulk insert ${bulkS.toFixed(1)} s (${rate(bulkS)} rows/s); import/bulk ${(importS / bulkS).toFixed(1)}x`,
    );
    printResult({
      measure: `device import, ${total} devices (${engine})`,
      figure: `${importS.toFixed(1)} s`,
      baseline: `plain bulk insert ${bulkS.toFixed(1)} s`,
      ratio: importS / bulkS,
      goal: engine === "SQLite" && total === 100_000 ? "≤ 30 s" : "",
      met: engine === "SQLite" && total === 100_000 ? importS <= 30 : null,
    });
  } finally {
    await cleanup();
  }
}

const dirs: string[] = [];
await bench(
  "SQLite",
  () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-import-"));
    dirs.push(dir);
    return { dataDir: dir };
  },
  async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  },
);
const pgUrl = process.env.IOT_BENCH_DATABASE_URL;
if (pgUrl) {
  const schemas: string[] = [];
  await bench(
    "PostgreSQL",
    () => {
      const pgSchema = `bench_import_${randomBytes(4).toString("hex")}`;
      schemas.push(pgSchema);
      return { dataDir: "", databaseUrl: pgUrl, pgSchema };
    },
    async () => {
      for (const pgSchema of schemas) {
        const cleaner = await openRegistryStore({ dataDir: "", databaseUrl: pgUrl, pgSchema });
        await cleaner.db.schema.dropSchema(pgSchema).cascade().execute();
        await cleaner.close();
      }
    },
  );
}
