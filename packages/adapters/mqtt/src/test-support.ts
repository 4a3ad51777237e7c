/**
 * Test harness (not exported): a fake registry with a few devices, the
 * adapter behind a real TCP listener on 127.0.0.1:0, and mqtt.js clients.
 */
import { once } from "node:events";
import { connect as netConnect } from "node:net";
import pino from "pino";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import mqttPacket, { type Packet } from "mqtt-packet";
import { FakeRegistryClient, type FakeDevice } from "@iot/adapter-core";
import { createMqttAdapter, type MqttAdapter, type MqttAdapterOptions } from "./mqtt-adapter.js";
import { listenTcp, type TcpListener } from "./transport/tcp.js";

/** Devices every test can use: two in tenant t1, one in t2 sharing deviceID "dev-a", one blocked. */
export const DEVICES = {
  a: { deviceIntId: 1, deviceId: "dev-a", username: "user-a", token: "token-a", tenantId: "t1" },
  b: { deviceIntId: 2, deviceId: "dev-b", username: "user-b", token: "token-b", tenantId: "t1" },
  otherTenantA: { deviceIntId: 3, deviceId: "dev-a", username: "user-c", token: "token-c", tenantId: "t2" },
  blocked: { deviceIntId: 4, deviceId: "dev-d", username: "user-d", token: "token-d", tenantId: "t1", blocked: true },
  restricted: {
    deviceIntId: 5,
    deviceId: "dev-e",
    username: "user-e",
    token: "token-e",
    tenantId: "t1",
    policies: [{ id: 1, topic: "secret/#", access: 3, allow: false }],
  },
  proxied: {
    deviceIntId: 6,
    deviceId: "dev-f",
    username: "user-f",
    token: "token-f",
    tenantId: "t1",
    subscriptions: [
      { topic: "config/#", qos: 1 },
      { topic: "secret/keys", qos: 1 },
    ],
    policies: [{ id: 2, topic: "secret/#", access: 2, allow: false }],
  },
} satisfies Record<string, FakeDevice>;

/** A running adapter on a real port. */
export interface Harness {
  readonly registry: FakeRegistryClient;
  readonly adapter: MqttAdapter;
  readonly tcp: TcpListener;
  readonly url: string;
  /** Connects as a known device (clientId = deviceID, username, token). */
  connect(device: FakeDevice, extra?: IClientOptions): Promise<MqttClient>;
  /** Connects with explicit options. */
  connectRaw(options: IClientOptions): Promise<MqttClient>;
  stop(): Promise<void>;
}

/** Starts fake registry + adapter + TCP listener. */
export async function startHarness(
  options: Partial<MqttAdapterOptions> = {},
  registryOptions: { bufferLimit?: number } = {},
): Promise<Harness> {
  const registry = new FakeRegistryClient({ devices: Object.values(DEVICES), ...registryOptions });
  registry.start();
  const adapter = await createMqttAdapter({
    registry,
    logger: pino({ level: "silent" }),
    policyDefault: "allow",
    ...options,
  });
  const tcp = await listenTcp(adapter, { port: 0, host: "127.0.0.1" });
  const url = `mqtt://127.0.0.1:${tcp.port}`;
  const clients: MqttClient[] = [];
  const connectRaw = async (opts: IClientOptions) => {
    const client = await mqtt.connectAsync(url, {
      reconnectPeriod: 0,
      protocolVersion: 4,
      connectTimeout: 5000,
      ...opts,
    });
    clients.push(client);
    return client;
  };
  return {
    registry,
    adapter,
    tcp,
    url,
    connectRaw,
    connect: (d, extra = {}) => connectRaw({ clientId: d.deviceId, username: d.username, password: d.token, ...extra }),
    async stop() {
      for (const c of clients) c.end(true);
      const closed = tcp.close();
      await adapter.close();
      await closed;
    },
  };
}

/** Resolves with the next message the client receives. */
export function nextMessage(client: MqttClient): Promise<{ topic: string; payload: string }> {
  return new Promise((resolve) =>
    client.once("message", (topic, payload) => resolve({ topic, payload: payload.toString() })),
  );
}

/** Resolves when the client's connection closes. */
export function closed(client: MqttClient): Promise<void> {
  return new Promise((resolve) => (client.connected ? client.once("close", () => resolve()) : resolve()));
}

/**
 * Resolves once the adapter has handled every packet the client sent before: aedes handles a connection's packets
 * one after another, so the UNSUBACK of an UNSUBSCRIBE (of a filter never subscribed: no side effect) comes back
 * after them. Rejects or never resolves when the connection closed instead.
 */
export async function roundTrip(client: MqttClient): Promise<void> {
  await client.unsubscribeAsync("round-trip");
}

/** A raw MQTT connection that records every packet the adapter sends (for what a client library will not send). */
interface RawConnection {
  /** Packets received so far, in order. */
  readonly received: Packet[];
  /** Writes a packet (encoded for the connection's protocol level) or raw bytes. */
  send(packet: Packet | Buffer): void;
  /** Resolves with the first received packet of that type (already received or still to come). */
  next(cmd: Packet["cmd"]): Promise<Packet>;
  /** Resolves when the adapter closed the connection. */
  readonly closed: Promise<void>;
  destroy(): void;
}

/** Opens a TCP connection to `port` speaking MQTT `protocolVersion`; sends nothing yet. */
export async function rawConnection(port: number, protocolVersion: 4 | 5): Promise<RawConnection> {
  const socket = netConnect(port, "127.0.0.1");
  await once(socket, "connect");
  const parser = mqttPacket.parser({ protocolVersion });
  const received: Packet[] = [];
  const waiting: { cmd: string; resolve: (p: Packet) => void }[] = [];
  parser.on("packet", (p) => {
    received.push(p);
    for (const w of waiting.filter((w) => w.cmd === p.cmd)) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(p);
    }
  });
  socket.on("data", (b) => parser.parse(b));
  socket.on("error", () => undefined);
  const closed = once(socket, "close").then(() => undefined);
  return {
    received,
    send: (p) => socket.write(Buffer.isBuffer(p) ? p : mqttPacket.generate(p, { protocolVersion })),
    next: (cmd) => {
      const seen = received.find((p) => p.cmd === cmd);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiting.push({ cmd, resolve }));
    },
    closed,
    destroy: () => socket.destroy(),
  };
}

/** The CONNECT of a known device over a raw connection. */
export function connectPacketOf(device: FakeDevice, protocolVersion: 4 | 5, extra: object = {}): Packet {
  return {
    cmd: "connect",
    protocolId: "MQTT",
    protocolVersion,
    clientId: device.deviceId,
    username: device.username,
    password: Buffer.from(device.token),
    clean: true,
    keepalive: 30,
    ...extra,
  };
}
