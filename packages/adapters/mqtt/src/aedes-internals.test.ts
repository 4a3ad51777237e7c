import { once } from "node:events";
import { createServer, connect as netConnect, type AddressInfo } from "node:net";
import { Aedes, type Client } from "aedes";
import mqttPacket from "mqtt-packet";
import { afterEach, describe, expect, it } from "vitest";
import { forgetConnectPacket, onIncomingPacket } from "./aedes-internals.js";

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
    const socket = netConnect((server.address() as AddressInfo).port, "127.0.0.1");
    cleanups.push(async () => void socket.destroy());
    const connack = new Promise<number>((resolve) => {
      const parser = mqttPacket.parser({ protocolVersion: 4 });
      parser.on("packet", (p) => p.cmd === "connack" && resolve(p.returnCode ?? -1));
      socket.on("data", (b) => parser.parse(b));
    });
    socket.write(
      mqttPacket.generate({
        cmd: "connect",
        protocolId: "MQTT",
        protocolVersion: 4,
        clean: true,
        keepalive: 30,
        clientId: "dev-a",
        username: "user-a",
        password: Buffer.from("secret-token"),
      }),
    );
    expect(await connack).toBe(0);
    expect(parsers[0]!.settings).toEqual({ protocolVersion: 4, bridgeMode: undefined });
  });
});
