import { randomBytes } from "node:crypto";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { MODBUS_CONFIG_TOPIC, type ChannelConfig } from "../modbus/channel-config.js";
import { ModbusConfigPush } from "../modbus/config-push.js";
import { fakeModbusAdapter, modbusFleet } from "../modbus/test-fixtures.js";
import { CommandRouter } from "../router/commands.js";
import { LiveUpdates } from "../sessions/live-updates.js";
import { SessionTable } from "../sessions/session-table.js";
import { postgresEngine } from "../store/test-engines.js";
import { Cluster } from "./cluster.js";

const logger = pino({ level: "silent" });
afterAll(() => postgresEngine?.cleanup());

describe.skipIf(postgresEngine === undefined)("Modbus configuration pushes across nodes (PostgreSQL)", () => {
  it("pushes a change made on one node to the Modbus gateway connected to another", async () => {
    const engine = postgresEngine!;
    const fleet = await modbusFleet(engine);
    const { db, caller, gateway, slave, point } = fleet;
    const run = randomBytes(4).toString("hex");
    const node = (nodeId: string, sessions: SessionTable, commands: CommandRouter) => {
      const modbusConfig = new ModbusConfigPush(db, sessions, commands, logger);
      const cluster = new Cluster({
        db,
        databaseUrl: engine.url!,
        nodeId,
        addresses: { apiAddress: "", grpcAddress: "" },
        sessions,
        live: new LiveUpdates(db, sessions),
        commands,
        modbusConfig,
        logger,
      });
      return { nodeId, modbusConfig, cluster };
    };
    const otherSessions = new SessionTable();
    const a = node(`a-${run}`, otherSessions, new CommandRouter(db, otherSessions, 60_000));
    // Node B holds the gateway's session (the fleet's own session table and command router).
    const b = node(`b-${run}`, fleet.sessions, fleet.commands);
    await a.cluster.start();
    await b.cluster.start();
    try {
      await expect.poll(() => a.cluster.heartbeat.otherLiveNodes(), { timeout: 5_000 }).toContain(b.nodeId);
      await slave(1);
      const adapter = fakeModbusAdapter(fleet.sessions);
      adapter.open(gateway.id);
      await b.modbusConfig.sessionOpened(gateway.id, "opened");
      const configs = () =>
        adapter.sent.filter((d) => d.topic === MODBUS_CONFIG_TOPIC).map((d) => JSON.parse(d.payload) as ChannelConfig);
      expect(configs()).toHaveLength(1);

      // The data point is added through node A, which holds no session of the gateway.
      await point("flow", { registerAddr: "400020" });
      a.modbusConfig.tenantChanged(caller.tenantId);
      await expect.poll(() => configs().length, { timeout: 3_000 }).toBe(2);
      expect(configs()[1]!.channel[0]!.device.map((t) => t.tagname)).toContain("flow");
    } finally {
      await a.modbusConfig.stop();
      await b.modbusConfig.stop();
      await a.cluster.stop();
      await b.cluster.stop();
    }
  });
});
