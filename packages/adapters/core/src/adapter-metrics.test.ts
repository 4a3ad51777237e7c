import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { metricValue } from "@iot/config";
import { adapterMetrics } from "./adapter-metrics.js";
import { AdapterError } from "./errors.js";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import { startTestRegistry, TEST_SESSION, useTestRegistries } from "./grpc-test-server.js";
import type { Uplink } from "./registry-client.js";

const { cleanups } = useTestRegistries();

const value = metricValue;

const session = TEST_SESSION;
const uplink = (payload = "x"): Uplink => ({
  sessionId: "s1",
  tenantId: "t1",
  deviceIntId: session.device.deviceIntId,
  topic: "data",
  payload: Buffer.from(payload),
  qos: 1,
  clientIp: "10.0.0.1",
  receivedAtMs: 1,
});

async function connectedClient(opts: { bufferLimit?: number; maxMessageSize?: number } = {}) {
  const s = await startTestRegistry(0);
  cleanups.push(() => s.stop());
  const c = new GrpcRegistryClient({
    address: `127.0.0.1:${s.port}`,
    protocol: "lwm2m",
    logger: pino({ level: "silent" }),
    backoff: { initialMs: 50, maxMs: 200 },
    ...opts,
  });
  cleanups.push(() => c.close());
  c.start();
  await vi.waitFor(() => expect(c.state).toBe("connected"));
  return { s, c };
}

describe("adapter metrics", () => {
  it("exist with zero values for a protocol as soon as its metrics are made", async () => {
    adapterMetrics("websocket");
    expect(await value("iot_adapter_sessions", { protocol: "websocket" })).toBe(0);
    expect(await value("iot_adapter_registry_connected", { protocol: "websocket" })).toBe(0);
    expect(await value("iot_adapter_uplink_buffer", { protocol: "websocket" })).toBe(0);
    expect(await value("iot_adapter_commands_pending", { protocol: "websocket" })).toBe(0);
  });

  it("count the registry link, sessions, acked uplinks and their ack latency in the registry client", async () => {
    const before = {
      acked: await value("iot_adapter_uplinks_total", { protocol: "lwm2m", outcome: "acked" }),
      acks: await value("iot_adapter_registry_ack_seconds", { protocol: "lwm2m", le: "+Inf" }),
    };
    const { c } = await connectedClient();
    expect(await value("iot_adapter_registry_connected", { protocol: "lwm2m" })).toBe(1);
    c.sessionOpened(session, { clientIp: "10.0.0.1", keepAlive: 60 });
    expect(await value("iot_adapter_sessions", { protocol: "lwm2m" })).toBe(1);
    await Promise.all([c.publish(uplink()), c.publish(uplink())]);
    expect(await value("iot_adapter_uplinks_total", { protocol: "lwm2m", outcome: "acked" })).toBe(before.acked + 2);
    expect(await value("iot_adapter_registry_ack_seconds", { protocol: "lwm2m", le: "+Inf" })).toBe(before.acks + 2);
    expect(await value("iot_adapter_uplink_buffer", { protocol: "lwm2m" })).toBe(0);
    c.sessionClosed(session, "bye");
    expect(await value("iot_adapter_sessions", { protocol: "lwm2m" })).toBe(0);
    await c.close();
    expect(await value("iot_adapter_registry_connected", { protocol: "lwm2m" })).toBe(0);
  });

  it("show unacked uplinks as buffer depth and count refusals by outcome", async () => {
    const { s, c } = await connectedClient({ bufferLimit: 2, maxMessageSize: 4 });
    s.autoAck = false;
    const tooLarge = await value("iot_adapter_uplinks_total", { protocol: "lwm2m", outcome: "too_large" });
    const full = await value("iot_adapter_uplinks_total", { protocol: "lwm2m", outcome: "buffer_full" });
    const rejected = await value("iot_adapter_uplinks_total", { protocol: "lwm2m", outcome: "rejected" });
    const pending = [c.publish(uplink("a")), c.publish(uplink("b"))];
    for (const p of pending) p.catch(() => undefined);
    expect(await value("iot_adapter_uplink_buffer", { protocol: "lwm2m" })).toBe(2);
    await expect(c.publish(uplink("c"))).rejects.toBeInstanceOf(AdapterError);
    await expect(c.publish(uplink("too large"))).rejects.toThrow(/refused/);
    expect(await value("iot_adapter_uplinks_total", { protocol: "lwm2m", outcome: "buffer_full" })).toBe(full + 1);
    expect(await value("iot_adapter_uplinks_total", { protocol: "lwm2m", outcome: "too_large" })).toBe(tooLarge + 1);
    s.push({ case: "uplinkAck", value: { seqs: [1n], rejected: [{ seq: 2n, reason: "unknown device" }] } });
    await expect(pending[1]).rejects.toThrow(/unknown device/);
    await vi.waitFor(async () =>
      expect(await value("iot_adapter_uplinks_total", { protocol: "lwm2m", outcome: "rejected" })).toBe(rejected + 1),
    );
    expect(await value("iot_adapter_uplink_buffer", { protocol: "lwm2m" })).toBe(0);
  });
  it("count a command as pending from its arrival until its outcome is reported", async () => {
    const { s, c } = await connectedClient();
    let deliver!: () => void;
    c.setHandlers({ downlink: () => new Promise((r) => (deliver = () => r({ status: "DELIVERED" }))) });
    const pending = () => value("iot_adapter_commands_pending", { protocol: "lwm2m" });
    const delivered = () => value("iot_adapter_commands_total", { protocol: "lwm2m", outcome: "delivered" });
    const before = { pending: await pending(), delivered: await delivered() };
    s.push({
      case: "downlink",
      value: { id: 5n, deviceIntId: 42n, topic: "inbox", payload: Buffer.from("x"), qos: 1 },
    });
    await vi.waitFor(async () => expect(await pending()).toBe(before.pending + 1));
    deliver();
    await vi.waitFor(async () => expect(await delivered()).toBe(before.delivered + 1));
    expect(await pending()).toBe(before.pending);
  });

  it("show uplinks waiting for room in the full buffer until acks let them in", async () => {
    const { s, c } = await connectedClient({ bufferLimit: 2 });
    s.autoAck = false;
    const acked: string[] = [];
    for (const p of ["a", "b", "c", "d"]) c.publishThen(uplink(p), (err) => void (err ?? acked.push(p)), true);
    expect(await value("iot_adapter_uplink_buffer", { protocol: "lwm2m" })).toBe(2);
    expect(await value("iot_adapter_uplinks_waiting", { protocol: "lwm2m" })).toBe(2);
    s.push({ case: "uplinkAck", value: { seqs: [1n] } });
    await vi.waitFor(() => expect(acked).toEqual(["a"]));
    expect(await value("iot_adapter_uplinks_waiting", { protocol: "lwm2m" })).toBe(1);
    s.push({ case: "uplinkAck", value: { seqs: [2n, 3n] } });
    await vi.waitFor(() => expect(acked).toEqual(["a", "b", "c"]));
    s.push({ case: "uplinkAck", value: { seqs: [4n] } });
    await vi.waitFor(() => expect(acked).toEqual(["a", "b", "c", "d"]));
    expect(await value("iot_adapter_uplinks_waiting", { protocol: "lwm2m" })).toBe(0);
    expect(await value("iot_adapter_uplink_buffer", { protocol: "lwm2m" })).toBe(0);
  });
});
