import pino from "pino";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_SIZE_LIMIT } from "./config.js";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import { startTestRegistry, useTestRegistries } from "./grpc-test-server.js";
import type { Uplink } from "./registry-client.js";
import { MAX_TOPIC_BYTES } from "./topics.js";

const { cleanups } = useTestRegistries();

const uplink = (payloadBytes: number, topic = "t"): Uplink => ({
  sessionId: "s1",
  tenantId: "t1",
  deviceIntId: 42,
  topic,
  payload: new Uint8Array(payloadBytes).fill(0x61),
  qos: 1,
  clientIp: "10.0.0.1",
  receivedAtMs: 1,
});

describe("GrpcRegistryClient message size", () => {
  it("carries the largest uplink the ceiling allows and refuses a larger one before sending it", async () => {
    const server = await startTestRegistry();
    cleanups.push(() => server.stop());
    const client = new GrpcRegistryClient({
      address: `127.0.0.1:${server.port}`,
      protocol: "mqtt",
      logger: pino({ level: "silent" }),
      maxMessageSize: MAX_MESSAGE_SIZE_LIMIT,
    });
    cleanups.push(() => client.close());
    client.start();
    await client.publish(uplink(MAX_MESSAGE_SIZE_LIMIT, "x".repeat(MAX_TOPIC_BYTES)));
    const uplinks = () => server.latest()!.received.filter((m) => m.kind.case === "uplink");
    expect(uplinks()).toHaveLength(1);
    await expect(client.publish(uplink(MAX_MESSAGE_SIZE_LIMIT + 1))).rejects.toMatchObject({
      code: "MESSAGE_TOO_LARGE",
    });
    expect(client.pendingUplinks).toBe(0);
    await client.publish(uplink(10));
    expect(uplinks().map((m) => (m.kind.value as { payload: Uint8Array }).payload.byteLength)).toEqual([
      MAX_MESSAGE_SIZE_LIMIT,
      10,
    ]);
    expect(server.streams).toHaveLength(1);
  });

  it("refuses a payload over its configured IOT_MAX_MESSAGE_SIZE without buffering it", async () => {
    const client = new GrpcRegistryClient({
      address: "127.0.0.1:1",
      protocol: "http",
      logger: pino({ level: "silent" }),
      maxMessageSize: 100,
    });
    cleanups.push(() => client.close());
    await expect(client.publish(uplink(101))).rejects.toMatchObject({ code: "MESSAGE_TOO_LARGE" });
    expect(client.pendingUplinks).toBe(0);
    void client.publish(uplink(100)).catch(() => undefined);
    expect(client.pendingUplinks).toBe(1);
  });
});
