import { afterAll, describe, expect, it } from "vitest";
import pino from "pino";
import { engines } from "../store/test-engines.js";
import { queryCounter } from "../store/test-query-counter.js";
import { updateDevice } from "../domain/update-device.js";
import { updateGateway } from "../domain/gateways.js";
import { PUBLISH_STATUS } from "../router/publish-status.js";
import { MODBUS_CONFIG_TOPIC, type ChannelConfig } from "./channel-config.js";
import { ModbusConfigPush } from "./config-push.js";
import { fakeModbusAdapter, modbusFleet } from "./test-fixtures.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const silent = pino({ level: "silent" });

describe.each(engines)("Modbus configuration push on $name", (engine) => {
  async function setup() {
    const fleet = await modbusFleet(engine);
    const push = new ModbusConfigPush(fleet.db, fleet.sessions, fleet.commands, silent);
    const adapter = fakeModbusAdapter(fleet.sessions);
    const configs = () =>
      adapter.sent.filter((d) => d.topic === MODBUS_CONFIG_TOPIC).map((d) => JSON.parse(d.payload) as ChannelConfig);
    return { ...fleet, push, adapter, configs };
  }

  it("pushes the gateway's channel, built from its slaves and their points, when the gateway's session opens", async () => {
    const { gateway, slave, push, adapter, configs, db } = await setup();
    await slave(3);
    await slave(1, { metaData: JSON.stringify({ pollInterval: 500 }) });
    adapter.open(gateway.id);
    await push.sessionOpened(gateway.id, "opened");
    const [config] = configs();
    const channel = config!.channel[0]!;
    expect(channel).toMatchObject({
      chntype: "tcp",
      chndrv: "modbus-tcp",
      chnname: "boiler room",
      tcphost: "10.0.0.20",
      tcpport: 1502,
      timeout: 1000,
      retries: 1,
      byteOrder: "ABCD",
      ttycts: 0,
    });
    expect(channel.device.map((t) => [t.tagaddr, t.tagname, t.tagattr, t.tagupdtime, t.deviceID])).toEqual([
      ["1!000001", "pump", "W", 500, "meter-1"],
      ["1!300001", "temp", "R", 500, "meter-1"],
      ["1!400010", "setpoint", "RW", 500, "meter-1"],
      ["3!000001", "pump", "W", 2000, "meter-3"],
      ["3!300001", "temp", "R", 2000, "meter-3"],
      ["3!400010", "setpoint", "RW", 2000, "meter-3"],
    ]);
    expect(channel.device[2]).toMatchObject({ tagtype: 25, tagsubno: 1, upperLimit: 90, lowerLimit: 10 });
    expect(channel.device[0]).toMatchObject({ tagtype: 23, tagarrsz: 0 });
    const log = await db
      .selectFrom("controlLogs")
      .selectAll()
      .where("deviceIntId", "=", gateway.id)
      .executeTakeFirstOrThrow();
    expect(log).toMatchObject({ topic: MODBUS_CONFIG_TOPIC, publishUser: "system", publishStatus: 1, qos: 1 });
    expect(JSON.parse(log.payload)).toEqual(config);
  });

  it("pushes again after a change only when the gateway's configuration differs", async () => {
    const { db, caller, gateway, slave, point, push, adapter, configs } = await setup();
    const meter = await slave(5);
    adapter.open(gateway.id);
    await push.sessionOpened(gateway.id, "opened");
    push.tenantChanged(caller.tenantId);
    await push.idle();
    expect(configs()).toHaveLength(1); // nothing changed

    await point("flow", { registerAddr: "400020" });
    push.tenantChanged(caller.tenantId);
    await push.idle();
    expect(configs()).toHaveLength(2);
    expect(configs()[1]!.channel[0]!.device.map((t) => t.tagname)).toContain("flow");

    await updateDevice(db, caller, meter.id, { modBusIndex: 9 });
    push.tenantChanged(caller.tenantId);
    await push.idle();
    expect(configs()).toHaveLength(3);
    expect(configs()[2]!.channel[0]!.device.map((t) => t.tagaddr)).toContain("9!400020");

    await updateGateway(db, caller, gateway.id, {
      channel: JSON.stringify({ chntype: "rtu", ttycom: "/dev/ttyUSB0", ttybaud: 19200, ttypari: "even" }),
    });
    push.tenantChanged(caller.tenantId);
    await push.idle();
    expect(configs()[3]!.channel[0]).toMatchObject({
      chntype: "rtu",
      chndrv: "modbus-rtu",
      ttycom: "/dev/ttyUSB0",
      ttybaud: 19200,
      ttypari: "even",
      ttydata: 8,
      tcphost: "",
    });
  });

  it("reads nothing of a tenant's devices after a change while no Modbus adapter is attached to the node", async () => {
    const fleet = await modbusFleet(engine);
    const queries = queryCounter();
    const push = new ModbusConfigPush(fleet.db.withPlugin(queries.plugin), fleet.sessions, fleet.commands, silent);
    push.tenantChanged(fleet.caller.tenantId);
    await push.idle();
    expect(queries.count).toBe(0);
    fakeModbusAdapter(fleet.sessions);
    push.tenantChanged(fleet.caller.tenantId);
    await push.idle();
    expect(queries.count).toBeGreaterThan(0);
  });

  it("pushes nothing to a gateway that is not connected, nor to gateways of other protocols", async () => {
    const { db, caller, gateway, gatewayProduct, slave, push, adapter, configs } = await setup();
    await slave(2);
    push.tenantChanged(caller.tenantId);
    await push.idle();
    expect(configs()).toHaveLength(0);
    await updateGateway(db, caller, gateway.id, { gatewayProtocol: 1 });
    adapter.open(gateway.id);
    await push.sessionOpened(gateway.id, "opened");
    expect(configs()).toHaveLength(0);
    expect(gatewayProduct.cloudProtocol).toBe(7);
  });

  it("does not push again to a re-announced session the configuration it applied, but does when it changed", async () => {
    const { db, caller, gateway, slave, commands, push, adapter, configs } = await setup();
    await slave(4);
    adapter.open(gateway.id);
    await push.sessionOpened(gateway.id, "opened");
    await commands.settle(adapter.sent[0]!.id, PUBLISH_STATUS.delivered);
    // A registry that restarted knows nothing of what it pushed but what it stored.
    const restarted = new ModbusConfigPush(db, push["sessions"], commands, silent);
    await restarted.sessionOpened(gateway.id, "announced");
    expect(configs()).toHaveLength(1);
    await slave(6);
    await restarted.sessionOpened(gateway.id, "announced");
    expect(configs()).toHaveLength(2);
    expect(caller.tenantId).toBeTruthy();
  });

  it("keeps what the adapter said when it refused a configuration", async () => {
    const { db, gateway, slave, commands, push, adapter } = await setup();
    await slave(7);
    adapter.open(gateway.id);
    await push.sessionOpened(gateway.id, "opened");
    await commands.settle(adapter.sent[0]!.id, PUBLISH_STATUS.failed, "serial port /dev/ttyUSB0 not found");
    const log = await db
      .selectFrom("controlLogs")
      .select(["publishStatus", "result"])
      .where("id", "=", adapter.sent[0]!.id)
      .executeTakeFirstOrThrow();
    expect(log).toEqual({ publishStatus: 0, result: "serial port /dev/ttyUSB0 not found" });
  });
});
