import { quietFor } from "@iot/config/testing";
import { afterEach, describe, expect, it } from "vitest";
import { AdapterHarness, GATEWAY, modbusDevice } from "./adapter-harness.js";
import { tagEntry, tcpChannel } from "./channel-fixture.js";

let h: AdapterHarness;
afterEach(async () => {
  await h?.stop();
});

const boilerTags = () => [
  tagEntry("boiler", 1, "temperature", "400001", 25),
  tagEntry("boiler", 1, "running", "000001", 23),
  tagEntry("boiler", 1, "level", "300001", 15),
  tagEntry("boiler", 1, "since", "400003", 24),
];
const pumpTags = () => [tagEntry("pump", 2, "rpm", "400001", 16)];

describe("Modbus adapter: gateway and configuration", () => {
  it("logs in as the gateway with its token credentials and reports the gateway session open", async () => {
    h = await AdapterHarness.start();
    expect(h.registry.authAttempts[0]).toEqual({
      protocol: "modbus",
      credentials: { kind: "token", clientId: "gw-1", username: "gw-user", token: "gw-token" },
      clientIp: "",
    });
    expect(h.sessionEvents(100)).toEqual([["opened", ""]]);
    expect(h.adapter.gatewaySession?.device.deviceIntId).toBe(100);
  });

  it("asks again while the registry is unreachable or refuses the gateway, logging why", async () => {
    h = await AdapterHarness.start({ login: false });
    h.registry.unavailable = true;
    const started = h.adapter.start();
    await h.until(() => h.registry.authAttempts.length >= 3);
    h.registry.unavailable = false;
    await started;
    expect(h.sessionEvents(100)).toEqual([["opened", ""]]);
    expect(h.logs.find((l) => l.msg === "gateway not admitted")).toMatchObject({
      code: "UNAVAILABLE",
      reason: "fake registry unavailable",
    });
  });

  it("applies a pushed configuration and sends each slave's values as uplinks of its own session", async () => {
    h = await AdapterHarness.start();
    h.slave.set(1, "holdingRegister", 0, [0x42f6, 0xe979, 0x6553, 0xf100]);
    h.slave.set(1, "coil", 0, [1]);
    h.slave.set(1, "inputRegister", 0, [0xfffe]);
    h.slave.set(2, "holdingRegister", 0, [1500]);
    expect(await h.push(tcpChannel(h.slave.port, [...boilerTags(), ...pumpTags()]))).toEqual({ status: "DELIVERED" });
    await h.until(() => h.values(1).length > 0 && h.values(2).length > 0);
    expect(h.values(1)[0]).toEqual({ temperature: 123.456, running: true, level: -2, since: 1700000000000 });
    expect(h.values(2)[0]).toEqual({ rpm: 1500 });
    const boilerSession = h.registry.liveSessions().find((s) => s.session.device.deviceIntId === 1)!;
    expect(boilerSession.info).toEqual({ clientIp: "127.0.0.1", keepAlive: 1 });
    expect(h.registry.uplinks.find((u) => u.deviceIntId === 1)).toMatchObject({
      sessionId: boilerSession.session.sessionId,
      tenantId: "tenant-1",
      topic: "up/modbus",
      qos: 1,
      clientIp: "127.0.0.1",
      gatewayDeviceIntId: 100,
    });
    expect(h.registry.authAttempts.find((a) => a.credentials.kind === "modbus" && a.credentials.index === 1)).toEqual({
      protocol: "modbus",
      credentials: {
        kind: "modbus",
        gatewayDeviceId: "gw-1",
        gatewayUsername: "gw-user",
        gatewayToken: "gw-token",
        index: 1,
      },
      clientIp: "127.0.0.1",
    });
  });

  it("refuses an invalid configuration with its reason and keeps polling the running one", async () => {
    h = await AdapterHarness.start();
    await h.push(tcpChannel(h.slave.port, pumpTags()));
    await h.until(() => h.values(2).length > 0);
    const outcome = await h.push(tcpChannel(h.slave.port, pumpTags(), { chntype: "serial" }));
    expect(outcome).toEqual({ status: "FAILED", message: 'channel 0: chntype "serial" must be one of tcp, rtu' });
    expect(h.adapter.units().map((u) => u.unit.deviceId)).toEqual(["pump"]);
    const partial = await h.push(tcpChannel(h.slave.port, [...pumpTags(), tagEntry("pump", 2, "bad", "200001", 16)]));
    expect(partial.status).toBe("DELIVERED");
    expect(partial.message).toContain("pump/bad: registerAddr");
  });

  it("answers FAILED to other gateway topics", async () => {
    h = await AdapterHarness.start();
    expect(await h.command(100, "firmware", {})).toEqual({
      status: "FAILED",
      message: '"firmware" is not a Modbus gateway command',
    });
  });
});

describe("Modbus adapter: polling and reporting", () => {
  it("reports changed values only, and all values every IOT_MODBUS_REPORT_EVERY", async () => {
    h = await AdapterHarness.start({ reportEverySeconds: 0.4 });
    h.slave.set(2, "holdingRegister", 0, [1, 2]);
    await h.push(tcpChannel(h.slave.port, [...pumpTags(), tagEntry("pump", 2, "mode", "400002", 16)]));
    await h.until(() => h.values(2).length === 1);
    expect(h.values(2)[0]).toEqual({ rpm: 1, mode: 2 });
    await quietFor(150, "poll cycles with nothing changed report nothing");
    h.slave.set(2, "holdingRegister", 1, [3]);
    await h.until(() => h.values(2).length === 2);
    expect(h.values(2)[1]).toEqual({ mode: 3 });
    await h.until(() => h.values(2).length === 3);
    expect(h.values(2)[2]).toEqual({ rpm: 1, mode: 3 });
  });

  it("merges a unit's reads into as few requests as the gap allows", async () => {
    h = await AdapterHarness.start();
    const tags = [0, 3, 9, 20].map((o) => tagEntry("pump", 2, `r${o}`, `4${String(o + 1).padStart(5, "0")}`, 16));
    await h.push(tcpChannel(h.slave.port, tags, { maxGap: 5 }));
    await h.until(() => h.adapter.stats.polls >= 3);
    const firstCycle = h.slave.reads.slice(0, 2);
    expect(firstCycle.map((r) => [r.offset, r.count])).toEqual([
      [0, 10],
      [20, 1],
    ]);
    expect(h.adapter.stats.requests).toBeLessThanOrEqual(2 * h.adapter.stats.polls);
  });

  it("closes a dead slave's session (offline) and opens a new one when it answers again", async () => {
    h = await AdapterHarness.start();
    await h.push(tcpChannel(h.slave.port, [...pumpTags(), ...boilerTags()], { timeout: 50, retries: 1 }));
    await h.until(() => h.sessionEvents(2).length === 1);
    h.slave.silent.add(2);
    await h.until(() => h.sessionEvents(2).length === 2);
    expect(h.sessionEvents(2)).toEqual([
      ["opened", "127.0.0.1"],
      ["closed", "slave not answering"],
    ]);
    expect(h.sessionEvents(1)).toEqual([["opened", "127.0.0.1"]]);
    h.slave.silent.delete(2);
    h.slave.set(2, "holdingRegister", 0, [77]);
    await h.until(() => h.sessionEvents(2).length === 3 && h.values(2).at(-1)?.rpm === 77);
    expect(h.sessionEvents(2)[2]).toEqual(["opened", "127.0.0.1"]);
  });

  it("logs a slave's exception with its code and keeps polling the other slaves", async () => {
    h = await AdapterHarness.start();
    h.slave.failReads(1, "holdingRegister", 0, 4);
    h.slave.set(2, "holdingRegister", 0, [5]);
    await h.push(tcpChannel(h.slave.port, [tagEntry("boiler", 1, "temperature", "400001", 25), ...pumpTags()]));
    await h.until(() => h.values(2).length > 0 && h.adapter.stats.errors >= 2);
    h.slave.set(2, "holdingRegister", 0, [6]);
    await h.until(() => h.values(2).at(-1)?.rpm === 6);
    const logged = h.logs.find((l) => l.msg === "slave answered an exception");
    expect(logged).toMatchObject({ unit: 1, exception: { code: 4, name: "Server Device Failure" } });
    expect(h.sessionEvents(1)).toEqual([["opened", "127.0.0.1"]]);
    expect(h.values(1)).toEqual([]);
  });
});

describe("Modbus adapter: sessions follow the configuration and the registry", () => {
  it("authenticates a device again under its new unit when its modBusIndex changes", async () => {
    h = await AdapterHarness.start();
    await h.push(tcpChannel(h.slave.port, pumpTags()));
    await h.until(() => h.sessionEvents(2).length === 1);
    h.registry.addDevice(modbusDevice(2, "pump", 7));
    h.slave.set(7, "holdingRegister", 0, [70]);
    expect(await h.push(tcpChannel(h.slave.port, [tagEntry("pump", 7, "rpm", "400001", 16)]))).toEqual({
      status: "DELIVERED",
    });
    await h.until(() => h.sessionEvents(2).length === 3 && h.values(2).at(-1)?.rpm === 70);
    expect(h.sessionEvents(2)).toEqual([
      ["opened", "127.0.0.1"],
      ["closed", "unit reconfigured"],
      ["opened", "127.0.0.1"],
    ]);
    const modbusAuth = h.registry.authAttempts.filter((a) => a.credentials.kind === "modbus");
    expect(modbusAuth.map((a) => (a.credentials as { index: number }).index)).toEqual([2, 7]);
  });

  it("opens the new device's session when another device takes over a unit id", async () => {
    h = await AdapterHarness.start();
    await h.push(tcpChannel(h.slave.port, pumpTags()));
    await h.until(() => h.sessionEvents(2).length === 1);
    h.registry.addDevice(modbusDevice(2, "pump", 9));
    h.registry.addDevice(modbusDevice(3, "pump-b", 2));
    await h.push(tcpChannel(h.slave.port, [tagEntry("pump-b", 2, "rpm", "400001", 16)]));
    await h.until(() => h.sessionEvents(3).length === 1);
    expect(h.sessionEvents(2)).toEqual([
      ["opened", "127.0.0.1"],
      ["closed", "unit left the configuration"],
    ]);
    await h.until(() => h.values(3).length > 0);
  });

  it("closes the session of a unit that left the configuration and stops polling it", async () => {
    h = await AdapterHarness.start();
    await h.push(tcpChannel(h.slave.port, [...pumpTags(), ...boilerTags()]));
    await h.until(() => h.sessionEvents(1).length === 1 && h.sessionEvents(2).length === 1);
    await h.push(tcpChannel(h.slave.port, boilerTags()));
    expect(h.sessionEvents(2)).toEqual([
      ["opened", "127.0.0.1"],
      ["closed", "unit left the configuration"],
    ]);
    const reads = h.slave.reads.filter((r) => r.unit === 2).length;
    await quietFor(150, "a unit still polled would be read within this");
    expect(h.slave.reads.filter((r) => r.unit === 2).length).toBe(reads);
  });

  it("closes a kicked slave's session and opens a new one after a backoff", async () => {
    h = await AdapterHarness.start();
    await h.push(tcpChannel(h.slave.port, pumpTags()));
    await h.until(() => h.sessionEvents(2).length === 1);
    h.registry.kick(2, "token changed");
    expect(h.sessionEvents(2)[1]).toEqual(["closed", "kicked: token changed"]);
    await h.until(() => h.sessionEvents(2).length === 3);
    expect(h.sessionEvents(2)[2]).toEqual(["opened", "127.0.0.1"]);
  });

  it("ends every slave session when the gateway is kicked, logs the gateway in again and reopens them", async () => {
    h = await AdapterHarness.start();
    await h.push(tcpChannel(h.slave.port, [...pumpTags(), ...boilerTags()]));
    await h.until(() => h.sessionEvents(1).length === 1 && h.sessionEvents(2).length === 1);
    h.registry.kick(100, "blocked");
    expect(h.sessionEvents(100)).toEqual([
      ["opened", ""],
      ["closed", "kicked: blocked"],
    ]);
    expect(h.sessionEvents(1)[1]).toEqual(["closed", "gateway kicked: blocked"]);
    await h.until(() => h.sessionEvents(100).length === 3 && h.sessionEvents(1).length === 3);
    await h.until(() => h.sessionEvents(2).length === 3);
  });

  it("keeps polling while the registry does not ack, and the buffered values are delivered after", async () => {
    h = await AdapterHarness.start({ bufferLimit: 5 });
    await h.push(tcpChannel(h.slave.port, pumpTags()));
    await h.until(() => h.values(2).length > 0);
    h.registry.autoAck = false;
    for (let v = 1; v <= 8; v++) {
      h.slave.set(2, "holdingRegister", 0, [v]);
      await h.until(() => h.values(2).at(-1)?.rpm === v || h.registry.pendingUplinks === 5);
    }
    expect(h.registry.pendingUplinks).toBe(5);
    h.slave.set(2, "holdingRegister", 0, [10]);
    await h.until(() => h.logs.some((l) => l.msg === "values not stored"));
    h.slave.set(2, "holdingRegister", 0, [11]);
    const polls = h.adapter.stats.polls;
    await h.until(() => h.adapter.stats.polls > polls + 2);
    const warned = h.logs.filter((l) => l.msg === "values not stored");
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ code: "BUFFER_FULL" });
    expect(h.registry.pendingUplinks).toBe(5);
    expect(h.registry.ackAll()).toBe(5);
    h.slave.set(2, "holdingRegister", 0, [9]);
    await h.until(() => h.values(2).at(-1)?.rpm === 9);
    expect(h.logs.some((l) => l.msg === "values are stored again")).toBe(true);
  });

  it("reports every session closed when it stops", async () => {
    h = await AdapterHarness.start();
    await h.push(tcpChannel(h.slave.port, pumpTags()));
    await h.until(() => h.sessionEvents(2).length === 1);
    await h.adapter.close();
    expect(h.sessionEvents(2)[1]).toEqual(["closed", "adapter stopping"]);
    expect(h.sessionEvents(GATEWAY.deviceIntId)[1]).toEqual(["closed", "adapter stopping"]);
    expect(h.registry.liveSessions()).toEqual([]);
    const reads = h.slave.reads.length;
    await quietFor(120, "a poller left running would read within this");
    expect(h.slave.reads.length).toBe(reads);
  });
});
