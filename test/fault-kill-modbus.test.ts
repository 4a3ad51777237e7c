/**
 * Fault injection: kill -9 of the Modbus adapter while it polls a real Modbus TCP slave (Debian's python3-pymodbus),
 * then started again for the same gateway. Polling resumes and values are stored again, no poll's report is stored
 * twice, a write the slave confirmed before the kill stays written, and a command given while the adapter is down
 * is carried out once it is back.
 */
import type { ChildProcess } from "node:child_process";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./helpers.js";
import { modbusRecords, startSlave, stopSlave, type ModbusRecords } from "./modbus-slave.js";
import { killHard, startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";

let f: RestartableFleet;
let slave: ChildProcess;
let records: ModbusRecords;
let adapterEnv: Record<string, string>;

beforeAll(async () => {
  f = await startRestartableFleet({}, []);
  const port = await freePort();
  slave = await startSlave(port, [1]);
  records = await modbusRecords((m, p, b) => f.api(m, p, b), port, [1]);
  adapterEnv = {
    IOT_MODBUS_GATEWAY_ID: records.gateway.deviceID,
    IOT_MODBUS_GATEWAY_USERNAME: records.gateway.deviceUsername,
    IOT_MODBUS_GATEWAY_TOKEN: records.gateway.token,
    IOT_MODBUS_REPORT_EVERY: "1", // a full report each second: values keep coming although the slave's stay put
  };
  await f.startAdapter("modbus-adapter", adapterEnv);
}, 60_000);
afterAll(async () => {
  await f?.close();
  if (slave) await stopSlave(slave);
});

interface StoredReport {
  payload: string;
  msgTime: unknown;
}

/** Every report of the meter stored so far, oldest first. */
async function reports(): Promise<StoredReport[]> {
  const out: StoredReport[] = [];
  for (let page = 1; ; page++) {
    const r = await f.api("GET", `/devices/${records.meters[1]!.id}/events?_limit=1000&_page=${page}`);
    const items = r.body.items as Array<StoredReport & { topic: string }>;
    out.push(...items.filter((e) => e.topic === "up/modbus"));
    if (items.length < 1000) return out.reverse();
  }
}

/** Polls until a report stored after `after` reports of the meter has `name` = `value`. */
async function reported(name: string, value: unknown, after: number) {
  await expect
    .poll(
      async () =>
        (await reports()).slice(after).some((r) => (JSON.parse(r.payload) as Record<string, unknown>)[name] === value),
      {
        timeout: 15_000,
      },
    )
    .toBe(true);
}

describe("kill -9 of the modbus-adapter while it polls", () => {
  it("resumes polling once started again, storing each poll's report once, and says so in the logs", async () => {
    await expect.poll(async () => (await reports()).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await killHard(f.adapters.get("modbus-adapter")!);
    const killedAt = Date.now();
    await expect
      .poll(() => f.central.errors.join("\n"), { timeout: 10_000 })
      .toMatch(/adapter stream lost; its sessions wait/);
    const before = (await reports()).length;
    // A report is told apart by its second (msgTime) and values, which stay put: one process reports at least a
    // second apart, but a restart within the second of the last report before the kill would look like a copy of it.
    await quietFor(
      Math.max(0, 1_100 - (Date.now() - killedAt)),
      "a restarted adapter's reports fall in a later second",
    );
    await f.startAdapter("modbus-adapter", adapterEnv);
    await expect.poll(async () => (await reports()).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(before + 3);
    const all = await reports();
    const polls = all.map((r) => `${String(r.msgTime)} ${r.payload}`);
    expect(polls.length - new Set(polls).size, polls.join("\n")).toBe(0);
    expect(JSON.parse(all.at(-1)!.payload)).toMatchObject({ temp: 21.5, ref: 1.25 });
    expect((await f.api("GET", `/devices/${records.meters[1]!.id}`)).body.deviceStatus).toBe(1);
  }, 45_000);

  const publish = async (payload: string) => {
    const r = await f.api("POST", "/device_publish", { deviceID: records.meters[1]!.deviceID, payload });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.controlLogIntID as number;
  };
  const status = async (id: number) =>
    (
      (await f.api("GET", `/devices/${records.meters[1]!.id}/control_logs?_limit=100`)).body.items as Array<{
        id: number;
        publishStatus: number;
      }>
    ).find((l) => l.id === id)?.publishStatus;

  it("keeps a write the slave confirmed before the kill: written, still delivered, not carried out again", async () => {
    const id = await publish('{"setpoint": 33.5}');
    await expect.poll(() => status(id), { timeout: 10_000 }).toBe(2);
    const commands = (await f.api("GET", `/devices/${records.meters[1]!.id}/control_logs`)).body.count as number;
    await killHard(f.adapters.get("modbus-adapter")!);
    const before = (await reports()).length;
    await f.startAdapter("modbus-adapter", adapterEnv);
    await reported("setpoint", 33.5, before);
    expect(await status(id)).toBe(2);
    expect((await f.api("GET", `/devices/${records.meters[1]!.id}/control_logs`)).body.count).toBe(commands);
  }, 30_000);

  it("carries out a command accepted at the moment of the kill, and one accepted while the adapter was down", async () => {
    const atKill = await publish('{"setpoint": 44.5}');
    await killHard(f.adapters.get("modbus-adapter")!);
    const whileDown = await publish('{"pump": true}');
    expect(await status(whileDown)).toBe(1); // issued: waiting for the gateway's adapter
    const before = (await reports()).length;
    await f.startAdapter("modbus-adapter", adapterEnv);
    await reported("setpoint", 44.5, before);
    await reported("pump", true, before);
    await expect.poll(() => status(atKill), { timeout: 10_000 }).toBe(2);
    await expect.poll(() => status(whileDown), { timeout: 10_000 }).toBe(2);
  }, 30_000);
});
