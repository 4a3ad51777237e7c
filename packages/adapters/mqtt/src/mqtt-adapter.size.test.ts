import { connect as netConnect } from "node:net";
import mqtt, { type MqttClient } from "mqtt";
import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PACKET_OVERHEAD_BYTES } from "./mqtt-adapter.js";
import { DEVICES, closed, startHarness, type Harness } from "./test-support.js";
import { listenWs } from "./transport/ws.js";
import type { Listener } from "./transport/listen.js";

const LIMIT = 1000;
let h: Harness;
let warnings: Record<string, unknown>[];

beforeEach(async () => {
  warnings = [];
  const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) });
  h = await startHarness({ logger, maxMessageSize: LIMIT });
});
afterEach(async () => {
  await h.stop();
});

/** A PUBLISH fixed header (QoS 1) announcing `remainingLength`, then only the first `bodyBytes` of its body. */
function publishHead(remainingLength: number, bodyBytes = 16): Buffer {
  const length: number[] = [];
  let n = remainingLength;
  do {
    length.push((n % 128) | (n >= 128 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.concat([
    Buffer.from([0x32, ...length]),
    Buffer.from([0x00, 0x01, 0x74, 0x00, 0x01]),
    Buffer.alloc(bodyBytes),
  ]);
}

const tooLarge = () => warnings.filter((w) => w.msg === "message too large; closing connection");
const sessionCloseReasons = () => h.registry.events.flatMap((e) => (e.type === "closed" ? [e.reason] : []));

describe("MQTT adapter: message size limit (IOT_MAX_MESSAGE_SIZE)", () => {
  it("closes a connection as soon as a PUBLISH header announces more than the limit, naming the device", async () => {
    const client = await h.connect(DEVICES.a);
    const gone = closed(client);
    // The body (tens of MB) never comes: without the gate the broker would wait for it for ever.
    client.stream.write(publishHead(66_000_000));
    await gone;
    expect(h.registry.uplinks).toEqual([]);
    expect(tooLarge()).toEqual([
      expect.objectContaining({
        deviceId: "dev-a",
        tenantId: "t1",
        clientId: "dev-a",
        ip: "127.0.0.1",
        packet: "PUBLISH",
        announcedBytes: 66_000_000,
        limitBytes: LIMIT,
      }),
    ]);
    await vi.waitFor(() =>
      expect(sessionCloseReasons()).toEqual([expect.stringMatching(/^message too large: PUBLISH/)]),
    );
  });

  it("lets a packet through up to the limit plus the topic allowance, and no further", async () => {
    const allowed = LIMIT + PACKET_OVERHEAD_BYTES;
    const client = await h.connect(DEVICES.a);
    const gone = closed(client);
    client.stream.write(publishHead(allowed, 0));
    await quietFor(100, "a packet over the limit is refused within this, before its body comes");
    expect(client.connected).toBe(true);
    expect(tooLarge()).toEqual([]);
    client.stream.destroy();
    await gone;
    const other = await h.connect(DEVICES.b);
    const otherGone = closed(other);
    other.stream.write(publishHead(allowed + 1, 0));
    await otherGone;
    expect(tooLarge()).toEqual([expect.objectContaining({ deviceId: "dev-b", announcedBytes: allowed + 1 })]);
  });

  it("stores a publish of exactly the limit and refuses one byte more, closing that connection only", async () => {
    const a = await h.connect(DEVICES.a);
    const b = await h.connect(DEVICES.b);
    await a.publishAsync("big", Buffer.alloc(LIMIT, 0x61), { qos: 1 });
    expect(h.registry.uplinks.map((u) => u.payload.length)).toEqual([LIMIT]);
    const gone = closed(a);
    a.publish("big", Buffer.alloc(LIMIT + 1, 0x61), { qos: 1 });
    await gone;
    expect(h.registry.uplinks).toHaveLength(1);
    expect(warnings).toContainEqual(
      expect.objectContaining({
        deviceId: "dev-a",
        reason: `message of ${LIMIT + 1} bytes is larger than IOT_MAX_MESSAGE_SIZE (${LIMIT} bytes)`,
      }),
    );
    await b.publishAsync("still/served", "yes", { qos: 1 });
    expect(h.registry.uplinks.at(-1)).toMatchObject({ deviceIntId: 2, topic: "still/served" });
  });

  it("names the connection by its address and claimed nothing when the oversized packet is the first", async () => {
    const ended = await new Promise<boolean>((resolve) => {
      const raw = netConnect(h.tcp.port, "127.0.0.1", () => raw.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f])));
      raw.on("close", () => resolve(true));
      raw.on("error", () => undefined);
    });
    expect(ended).toBe(true);
    expect(tooLarge()).toEqual([expect.objectContaining({ ip: "127.0.0.1", packet: "CONNECT" })]);
    expect(tooLarge()[0]).not.toHaveProperty("deviceId");
  });

  describe("over WebSocket", () => {
    let ws: Listener;
    const clients: MqttClient[] = [];
    beforeEach(async () => {
      ws = await listenWs(h.adapter, { port: 0, host: "127.0.0.1", envName: "IOT_MQTT_WS_PORT" });
    });
    afterEach(async () => {
      for (const c of clients) c.end(true);
      await ws.close();
    });

    it("refuses a frame over the largest packet from its header, naming the device, and logs it once", async () => {
      const client = await mqtt.connectAsync(`ws://127.0.0.1:${ws.port}/mqtt`, {
        protocolVersion: 4,
        reconnectPeriod: 0,
        clientId: DEVICES.a.deviceId,
        username: DEVICES.a.username,
        password: DEVICES.a.token,
      });
      clients.push(client);
      const gone = closed(client);
      // Small packets (PINGREQ), but all in one frame larger than the largest packet: ws refuses it unread.
      const pings = Buffer.alloc(h.adapter.maxPacketBytes + 2);
      for (let i = 0; i < pings.length; i += 2) pings[i] = 0xc0;
      client.stream.write(pings);
      await gone;
      expect(h.registry.uplinks).toEqual([]);
      expect(tooLarge()).toEqual([
        expect.objectContaining({ deviceId: "dev-a", packet: "WebSocket frame", limitBytes: LIMIT }),
      ]);
    });

    it("gates MQTT packets inside frames like any other stream", async () => {
      const client = await mqtt.connectAsync(`ws://127.0.0.1:${ws.port}/mqtt`, {
        protocolVersion: 4,
        reconnectPeriod: 0,
        clientId: DEVICES.b.deviceId,
        username: DEVICES.b.username,
        password: DEVICES.b.token,
      });
      clients.push(client);
      const gone = closed(client);
      client.stream.write(publishHead(66_000_000));
      await gone;
      expect(tooLarge()).toEqual([expect.objectContaining({ deviceId: "dev-b", packet: "PUBLISH" })]);
    });
  });
});
