/**
 * The Modbus adapter end to end: the central node and the Modbus adapter as separate processes (the adapter
 * authenticating as its gateway), a real third-party slave (Debian's python3-pymodbus over Modbus TCP), and mbpoll
 * reading back what a command wrote.
 */
import { execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable, stopProcess, type FleetProcess } from "../scripts/fleet.js";
import { freePort, startTestFleet, type TestFleet } from "./helpers.js";
import { modbusRecords, startModbusAdapter, startSlave, stopSlave, until, type ModbusRecords } from "./modbus-slave.js";

const run = promisify(execFile);
/** The adapters' token an operator chose and gave both the fleet and the gateway's adapter. */
const OPERATOR_TOKEN = "operator-chosen-adapter-token";

describe("Modbus devices polled by the Modbus adapter for their gateway", () => {
  let t: TestFleet;
  let adapter: FleetProcess;
  let slave: ChildProcess;
  let slavePort: number;
  let gateway: ModbusRecords["gateway"];
  let meters: ModbusRecords["meters"];

  const deviceStatus = async (id: number) => (await t.api("GET", `/devices/${id}`)).body.deviceStatus as number;
  const configs = async () =>
    (await t.api("GET", `/gateways/${gateway.id}/control_logs?_limit=100`)).body.items as Array<{
      publishStatus: number;
      publishResult: string | null;
      payload: { channel: Array<{ device: Array<{ tagaddr: string }> }> };
    }>;
  const lastCommand = async (deviceId: number) =>
    (await t.api("GET", `/devices/${deviceId}/control_logs`)).body.items[0] as {
      publishStatus: number;
      publishResult: string | null;
    };

  beforeAll(async () => {
    // As docs/devices/modbus.md tells an operator with the adapter on the gateway: the fleet is started with a
    // chosen IOT_REGISTRY_TOKEN (the one it makes otherwise is never shown) and the adapter is given the same value.
    t = await startTestFleet({ IOT_REGISTRY_TOKEN: OPERATOR_TOKEN }, { adapters: [] });
    slavePort = await freePort();
    slave = await startSlave(slavePort, [1, 2]);
    ({ gateway, meters } = await modbusRecords(t.api, slavePort, [1, 2]));
    adapter = await startModbusAdapter(gateway, reachable(t.fleet.central.urls.grpc!), {
      IOT_REGISTRY_TOKEN: OPERATOR_TOKEN,
      IOT_MODBUS_REPORT_EVERY: "2",
    });
  }, 60_000);

  afterAll(async () => {
    if (adapter) await stopProcess(adapter);
    if (slave) await stopSlave(slave);
    await t?.close();
  });

  it("pushes the gateway's configuration to the adapter given the token the fleet was started with, which applies it", async () => {
    expect(t.fleet.registryTokenGenerated).toBe(false);
    expect(t.fleet.registryToken).toBe(OPERATOR_TOKEN);
    const applied = await until("an applied configuration", async () =>
      (await configs()).find((c) => c.publishStatus === 2),
    );
    expect(applied.payload.channel[0]!.device.map((d) => d.tagaddr).sort()).toEqual([
      "1!000001",
      "1!300001",
      "1!300003",
      "1!400010",
      "1!400200",
      "2!000001",
      "2!300001",
      "2!300003",
      "2!400010",
      "2!400200",
    ]);
  });

  it("stores each slave's polled values as its uplinks and data point values, and marks it online", async () => {
    for (const unit of [1, 2]) {
      const m = meters[unit]!;
      const values = await until(`values of unit ${unit}`, async () => {
        const items = (await t.api("GET", `/devices/${m.id}/events`)).body.items as Array<{
          topic: string;
          payload: string;
        }>;
        const merged = Object.assign(
          {},
          ...items.filter((e) => e.topic === "up/modbus").map((e) => JSON.parse(e.payload)),
        );
        return "temp" in merged && "ref" in merged ? merged : undefined;
      });
      expect(values).toMatchObject({ temp: 21.5, ref: unit + 0.25, setpoint: 0, pump: false });
      expect(values).not.toHaveProperty("far"); // its reads fail with exception 2, the others go on
      expect(await deviceStatus(m.id)).toBe(1);
      const original = await until("original data", async () => {
        const r = (await t.api("GET", `/original_data?deviceID=${m.deviceID}`)).body as Array<{
          dataPointName: string;
          originalData: { value: number[] };
        }>;
        return r.find((o) => o.dataPointName === "ref" && o.originalData.value.length > 0);
      });
      expect(original.originalData.value.at(-1)).toBe(unit + 0.25);
    }
  });

  it("writes a command to the slave, confirmed, and mbpoll reads the register back", async () => {
    const r = await t.api("POST", "/device_publish", {
      deviceID: meters[1]!.deviceID,
      payload: '{"setpoint": 42.5, "pump": true}',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    await until("the write confirmed", async () =>
      (await lastCommand(meters[1]!.id)).publishStatus === 2 ? true : undefined,
    );
    const { stdout } = await run("mbpoll", [
      "-m",
      "tcp",
      "-p",
      String(slavePort),
      "-a",
      "1",
      "-t",
      "4:float",
      "-B",
      "-r",
      "10",
      "-c",
      "1",
      "-1",
      "127.0.0.1",
    ]);
    expect(stdout).toMatch(/\[10\]:\s+42\.5/);
    const coil = await run("mbpoll", [
      "-m",
      "tcp",
      "-p",
      String(slavePort),
      "-a",
      "1",
      "-t",
      "0",
      "-r",
      "1",
      "-c",
      "1",
      "-1",
      "127.0.0.1",
    ]);
    expect(coil.stdout).toMatch(/\[1\]:\s+1/);
  });

  it("answers a write the slave refuses with publishStatus 0 and the exception", async () => {
    const r = await t.api("POST", "/device_publish", { deviceID: meters[2]!.deviceID, payload: '{"far": 1}' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const log = await until("the write refused", async () => {
      const l = await lastCommand(meters[2]!.id);
      return l.publishStatus === 0 ? l : undefined;
    });
    expect(log.publishResult).toMatch(/exception.*2|illegal data address/i);
  });

  it("pushes a new configuration when a slave's modBusIndex changes; a unit nobody answers goes offline", async () => {
    const before = (await configs()).length;
    const r = await t.api("PUT", `/devices/${meters[2]!.id}`, { modBusIndex: 7 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const pushed = await until("a new configuration", async () => {
      const all = await configs();
      return all.length > before && all[0]!.publishStatus === 2 ? all[0] : undefined;
    });
    expect(pushed.payload.channel[0]!.device.map((d) => d.tagaddr)).toContain("7!300001");
    await until("unit 7 offline", async () => ((await deviceStatus(meters[2]!.id)) === 0 ? true : undefined));
  });

  it("marks a slave offline when it stops answering and online again when it answers", async () => {
    await until("meter 1 online", async () => ((await deviceStatus(meters[1]!.id)) === 1 ? true : undefined));
    await stopSlave(slave);
    await until("meter 1 offline", async () => ((await deviceStatus(meters[1]!.id)) === 0 ? true : undefined));
    slave = await startSlave(slavePort, [1, 2]);
    await until(
      "meter 1 online again",
      async () => ((await deviceStatus(meters[1]!.id)) === 1 ? true : undefined),
      20_000,
    );
    const logs = (await t.api("GET", `/devices/${meters[1]!.id}/connect_logs`)).body.items as Array<{
      connectStatus: number;
    }>;
    expect(logs.map((l) => l.connectStatus).slice(0, 3)).toEqual([1, 0, 1]);
  }, 60_000);
});
