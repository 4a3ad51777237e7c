import { EventEmitter, once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { Aedes, type Client } from "aedes";
import mqtt from "mqtt";
import { afterEach, describe, expect, it } from "vitest";
import { forgetConnectPacket, grantedQosOf, onIncomingPacket } from "./aedes-internals.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("aedes internals", () => {
  it("lets the parser forget the CONNECT packet, password included, keeping the protocol version it reads", async () => {
    const broker = await Aedes.createBroker();
    const parsers: { settings?: Record<string, unknown> }[] = [];
    const server = createServer((socket) => {
      const client: Client = broker.handle(socket);
      parsers.push((client as unknown as { _parser: { settings?: Record<string, unknown> } })._parser);
      onIncomingPacket(client, (p) => p.cmd === "connect" && forgetConnectPacket(client));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    cleanups.push(() => new Promise((r) => server.close(() => broker.close(() => r()))));
    const port = (server.address() as AddressInfo).port;
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      clientId: "dev-a",
      username: "user-a",
      password: "secret-token",
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    cleanups.push(() => client.endAsync(true));
    expect(client.connected).toBe(true);
    expect(parsers[0]!.settings).toEqual({ protocolVersion: 4, bridgeMode: undefined });
  });

  it("answers the highest QoS granted to a filter matching the topic, -1 when none does, leaving out the filters asked", () => {
    const client = {
      _parser: new EventEmitter(),
      _nextId: 1,
      subscriptions: { "m/inbox": { qos: 0 }, "m/+": { qos: 1 }, "m/other": { qos: 2 }, "m/gone": undefined },
    } as unknown as Client;
    expect(grantedQosOf(client, "m/inbox")).toBe(1);
    expect(grantedQosOf(client, "m/inbox", new Set(["m/+"]))).toBe(0);
    expect(grantedQosOf(client, "m/other")).toBe(2);
    expect(grantedQosOf(client, "m/gone/deeper")).toBe(-1);
    expect(grantedQosOf(client, "x/inbox")).toBe(-1);
  });
});
