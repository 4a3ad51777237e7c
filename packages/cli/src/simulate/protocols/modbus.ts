import { createGrpcRegistryClient } from "@iot/adapter-core";
import { createModbusAdapter, MemorySlave, UPLINK_TOPIC } from "@iot/adapter-modbus";
import pino from "pino";
import { answer, type AnswerOf } from "../../client.js";
import type { SimProtocol } from "../sim-protocol.js";
import { simDataPoint } from "../sim-records.js";
import { StoredWatch } from "../stored-watch.js";

/** The gateway the simulated slaves are under. */
const GATEWAY = "sim-modbus-gateway";
/** The data point each slave reports: an unsigned 32-bit counter in input registers 1–2 (offsets 0–1). */
const POINT = "counter";
/** How often the adapter polls each slave, ms (the registry's lower bound). */
const POLL_MS = 100;
/** How long the adapter may take to log in and get its configuration, ms. */
const SETUP_TIMEOUT_MS = 10_000;
/** The highest unit id a simulated slave gets (serial-line units are 1…247). */
const MAX_UNIT = 247;

/** The simulation's gateway, as the API answers it (its token only to callers that may see secrets). */
type Gateway = Pick<AnswerOf<"/api/v1/gateways", "POST">, "id" | "deviceID" | "deviceUsername" | "token">;

/** The counter in a stored `up/modbus` uplink, if it carries one. */
function polledValue(payload: string): number | undefined {
  try {
    const v = (JSON.parse(payload) as Record<string, unknown>)[POINT];
    return typeof v === "number" ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Modbus: N slaves (units 1…N of one in-memory Modbus TCP slave server on 127.0.0.1) under the gateway
 * `sim-modbus-gateway`, polled every 100 ms by a Modbus adapter the CLI runs for that gateway, logged in to the
 * central node's registry at --target (host:port of its gRPC listener, default `<API host>:50051`) with the registry
 * token. A message is a register change: the slave's counter (input registers 300001–300002) takes the message's
 * sequence number; it counts once the `up/modbus` uplink carrying it (or a later value) is stored.
 */
export const modbusProtocol: SimProtocol<{ gateway: Gateway }> = {
  name: "modbus",
  cloudProtocol: 7,
  defaultTarget: "{host}:50051",
  confirmsStored: true,
  maxDevices: MAX_UNIT,
  async prepare({ client, productID }) {
    await simDataPoint(client, productID, {
      dataPointName: "Counter",
      dataPointID: POINT,
      pointDataType: 22,
      dataTransType: 1,
      registerAddr: "300001",
    });
    const found = await answer(
      client.GET("/api/v1/gateways", { params: { query: { gatewayName_like: GATEWAY, _limit: "1000" } } }),
    );
    const gateway =
      found.items.find((g) => g.gatewayName === GATEWAY && g.productID === productID) ??
      (await answer(
        client.POST("/api/v1/gateways", {
          body: { productID, gatewayName: GATEWAY, gatewayProtocol: 7, authType: 1 },
        }),
      ));
    return { gateway };
  },
  deviceBody: (i, { gateway }) => ({ upLinkSystem: 2, gateway: gateway.id, modBusIndex: i + 1, authType: 1 }),
  async open({ client, target, registryToken }, devices, { gateway }) {
    if (!registryToken)
      throw new Error("--protocol modbus runs a Modbus adapter: give the registry token (--registry-token)");
    if (gateway.token === undefined)
      throw new Error("the API shows this caller no gateway tokens: log in as an operator");
    // Every unit id answers: the gateway may also hold slaves of an earlier, larger run, which would otherwise time
    // out on the shared link at each poll and delay the others.
    const slave = await MemorySlave.start(Array.from({ length: MAX_UNIT }, (_, i) => i + 1));
    slave.recordReads = false;
    const logger = pino({ level: "silent" });
    const address = target.replace(/^grpc:\/\//, "");
    const registry = createGrpcRegistryClient({ address, protocol: "modbus", logger, token: registryToken });
    const adapter = createModbusAdapter({
      registry,
      logger,
      gateway: { deviceId: gateway.deviceID, username: gateway.deviceUsername, token: gateway.token },
      reportEverySeconds: 60,
    });
    const closeAll = async () => {
      await adapter.close();
      await registry.close();
      await slave.stop();
    };
    try {
      await answer(
        client.PUT("/api/v1/gateways/{id}", {
          params: { path: { id: gateway.id } },
          body: { channel: { chntype: "tcp", tcphost: "127.0.0.1", tcpport: slave.port, pollInterval: POLL_MS } },
        }),
      );
      registry.start();
      // The adapter asks again until the gateway is let in, and the registry then pushes the channel configuration.
      void adapter.start().catch(() => undefined);
      const deadline = Date.now() + SETUP_TIMEOUT_MS;
      const polled = () =>
        adapter.units().filter((u) => u.channel.link.kind === "tcp" && u.channel.link.port === slave.port).length;
      while (polled() < devices.length) {
        if (Date.now() > deadline)
          throw new Error(
            adapter.gatewaySession
              ? "the gateway's configuration did not reach the Modbus adapter"
              : `the Modbus adapter could not log in to the registry at ${address} as the gateway (registry token?)`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    } catch (err) {
      await closeAll();
      throw err;
    }
    const watch = await StoredWatch.start(client, { topic: UPLINK_TOPIC, value: (e) => polledValue(e.payload) });
    let seq = 0;
    return {
      async send(d) {
        const value = ++seq;
        slave.set(d.modBusIndex!, "inputRegister", 0, [Math.floor(value / 0x10000) & 0xffff, value & 0xffff]);
        await watch.stored(d.deviceID, value);
      },
      async close() {
        await watch.close();
        await closeAll();
      },
    };
  },
};
