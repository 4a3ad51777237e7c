import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, expect, it, vi } from "vitest";
import { openRegistryStore } from "@iot/registry";
import { readCentralConfig } from "./config.js";
import { startCentral, type Central } from "./central.js";

const dir = mkdtempSync(join(tmpdir(), "central-schedules-"));
const config = readCentralConfig({
  IOT_DATA_DIR: dir,
  IOT_API_PORT: "0",
  IOT_GRPC_PORT: "0",
  IOT_API_HOST: "127.0.0.1",
  IOT_ADMIN_PASSWORD: "pw-123456",
});
const logLines: Array<Record<string, unknown>> = [];
const logger = pino(
  { level: "info" },
  new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  }),
);
let central: Central | undefined;

afterAll(async () => {
  await central?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function client(c: Central) {
  let token = "";
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${c.apiPort}/api/v1${path}`, {
      method,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  token = (await api("POST", "/login", { username: "admin", password: "pw-123456" })).body.token;
  return api;
}

it("fires at start a run missed while the central was down by less than an interval, and skips older ones", async () => {
  central = await startCentral(config, logger);
  let api = await client(central);
  const product = (await api("POST", "/products", { productName: "p", cloudProtocol: 1 })).body;
  const device = (
    await api("POST", "/devices", { productID: product.productID, deviceName: "d1", upLinkSystem: 1, authType: 1 })
  ).body;
  const schedule = (scheduleName: string) =>
    api("POST", "/device_schedule_publish", {
      deviceID: device.deviceID,
      payload: scheduleName,
      scheduleName,
      scheduleType: 1,
      IntervalMinute: 10,
    });
  expect((await schedule("recent")).status).toBe(201);
  expect((await schedule("old")).status).toBe(201);
  const [old, recent] = (await api("GET", "/device_schedule_publish")).body.items;
  await central.stop();
  central = undefined;

  // While down: "recent" became due 5 minutes ago (less than its 10-minute interval), "old" 15 minutes ago.
  const store = await openRegistryStore({ dataDir: dir });
  const now = Date.now();
  await store.db
    .updateTable("schedules")
    .set({ nextRunAt: now - 5 * 60_000 })
    .where("id", "=", recent.id)
    .execute();
  await store.db
    .updateTable("schedules")
    .set({ nextRunAt: now - 15 * 60_000 })
    .where("id", "=", old.id)
    .execute();
  await store.close();

  central = await startCentral(config, logger);
  api = await client(central);
  const fired = await vi.waitFor(
    async () => {
      const body = (await api("GET", `/device_schedule_publish/${recent.id}`)).body;
      expect(body.lastResult).toBeTruthy();
      return body;
    },
    { timeout: 5_000, interval: 50 },
  );
  expect(fired.lastResult).toMatchObject({ controlLogIntID: expect.any(Number), publishStatus: "1" });
  const logs = (await api("GET", `/devices/${device.id}/control_logs`)).body.items;
  expect(logs.map((l: any) => l.payload)).toEqual(["recent"]);
  const skipped = (await api("GET", `/device_schedule_publish/${old.id}`)).body;
  expect(skipped.lastResult).toBeNull();
  expect(Date.parse(`${skipped.nextRunAt.replace(" ", "T")}Z`)).toBeGreaterThan(now);
  expect(logLines).toContainEqual(
    expect.objectContaining({ msg: "skipped a scheduled run missed by one interval or more", scheduleId: old.id }),
  );
});
