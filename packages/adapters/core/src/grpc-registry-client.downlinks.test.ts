/**
 * The gRPC registry client's side of the registry's messages: downlinks and their results (batched when the
 * registry takes batches, kept across a reconnect), kicks, and policy and subscription pushes.
 */
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import type { DeviceSession } from "./registry-client.js";
import { streamKinds as kinds, TEST_SESSION as session, useTestRegistries } from "./grpc-test-server.js";

const logger = pino({ level: "silent" });
const { cleanups, registry, client } = useTestRegistries();

describe("GrpcRegistryClient downlinks and pushes", () => {
  it("answers a downlink with the handler's result under the same id", async () => {
    const s = await registry();
    const c = client(s.port);
    const handled: number[] = [];
    c.setHandlers({ downlink: async (d) => (handled.push(d.id), { status: "DELIVERED" }) });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    s.push({
      case: "downlink",
      value: { id: 9n, deviceIntId: 42n, topic: "inbox", payload: Buffer.from("on"), qos: 1 },
    });
    await vi.waitFor(() => expect(kinds(s, 0)).toContain("downlinkResult"));
    const result = s.streams[0]!.received.find((m) => m.kind.case === "downlinkResult")!;
    expect(result.kind.value).toMatchObject({ downlinkId: 9n, status: 1 });
    expect(handled).toEqual([9]);
  });

  it("says in Hello that it takes DownlinkBatch, and answers each of a batch's downlinks in order", async () => {
    const s = await registry();
    const c = client(s.port);
    const handled: number[] = [];
    c.setHandlers({ downlink: async (d) => (handled.push(d.id), { status: d.id === 2 ? "FAILED" : "SENT" }) });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const hello = s.streams[0]!.received[0]!.kind;
    expect(hello.case === "hello" && hello.value.downlinkBatches).toBe(true);
    const downlink = (id: bigint) => ({ id, deviceIntId: 42n, topic: "inbox", payload: Buffer.from("on"), qos: 0 });
    s.push({ case: "downlinkBatch", value: { downlinks: [downlink(1n), downlink(2n), downlink(3n)] } });
    // This registry's HelloAck does not say it takes DownlinkResultBatch: one DownlinkResult each.
    await vi.waitFor(() => expect(kinds(s, 0).filter((k) => k === "downlinkResult")).toHaveLength(3));
    expect(handled).toEqual([1, 2, 3]);
    const results = s.streams[0]!.received.flatMap((m) =>
      m.kind.case === "downlinkResult" ? [[Number(m.kind.value.downlinkId), m.kind.value.status]] : [],
    );
    expect(results).toEqual([
      [1, 2],
      [2, 3],
      [3, 2],
    ]);
  });

  it("sends the downlink results of one turn of the event loop as one DownlinkResultBatch to a registry that takes them", async () => {
    const s = await registry();
    s.downlinkResultBatches = true;
    const c = client(s.port);
    c.setHandlers({ downlink: async () => ({ status: "DELIVERED" }) });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const downlink = (id: bigint) => ({ id, deviceIntId: 42n, topic: "inbox", payload: Buffer.from("on"), qos: 1 });
    s.push({ case: "downlinkBatch", value: { downlinks: [downlink(1n), downlink(2n), downlink(3n)] } });
    await vi.waitFor(() => expect(kinds(s, 0)).toContain("downlinkResultBatch"));
    const batch = s.streams[0]!.received.find((m) => m.kind.case === "downlinkResultBatch")!.kind;
    expect(batch.case === "downlinkResultBatch" && batch.value.results.map((r) => Number(r.downlinkId))).toEqual([
      1, 2, 3,
    ]);
    // A lone result still goes as a plain DownlinkResult.
    s.push({ case: "downlink", value: downlink(4n) });
    await vi.waitFor(() => expect(kinds(s, 0)).toContain("downlinkResult"));
    expect(kinds(s, 0).filter((k) => k === "downlinkResult" || k === "downlinkResultBatch")).toEqual([
      "downlinkResultBatch",
      "downlinkResult",
    ]);
  });

  it("sends the results that found the stream gone after the next Hello, one DownlinkResult each", async () => {
    const s = await registry();
    s.downlinkResultBatches = true;
    // A reconnect slow enough that the results come while there is no stream.
    const c = new GrpcRegistryClient({
      address: `127.0.0.1:${s.port}`,
      protocol: "mqtt",
      logger,
      backoff: { initialMs: 1000, maxMs: 1000 },
    });
    cleanups.push(() => c.close());
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let handled = 0;
    c.setHandlers({ downlink: async () => (handled++, await gate, { status: "DELIVERED" }) });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const downlink = (id: bigint) => ({ id, deviceIntId: 42n, topic: "inbox", payload: Buffer.from("on"), qos: 1 });
    s.push({ case: "downlinkBatch", value: { downlinks: [downlink(1n), downlink(2n)] } });
    await vi.waitFor(() => expect(handled).toBe(2));
    s.latest()!.call.emit("error", { code: 14, details: "registry going away" });
    await vi.waitFor(() => expect(c.state).toBe("connecting"));
    open();
    await vi.waitFor(() => expect(s.streams.length).toBe(2));
    await vi.waitFor(() => expect(kinds(s, 1)).toEqual(["hello", "downlinkResult", "downlinkResult"]));
    const ids = s.streams[1]!.received.flatMap((m) =>
      m.kind.case === "downlinkResult" ? [Number(m.kind.value.downlinkId)] : [],
    );
    expect(ids).toEqual([1, 2]);
  });

  it("passes kicks to the handler and applies policy updates to live sessions", async () => {
    const s = await registry();
    const c = client(s.port);
    const kicks: [number, string][] = [];
    c.setHandlers({ kick: (id, reason) => kicks.push([id, reason]) });
    const live = { ...session, policies: [] as DeviceSession["policies"] };
    c.sessionOpened(live, { clientIp: "", keepAlive: 0 });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    s.push({ case: "kick", value: { deviceIntId: 42n, reason: "blocked" } });
    s.push({
      case: "policyUpdate",
      value: { deviceIntId: 42n, policies: [{ id: 1n, topic: "x", access: 1, allow: false }] },
    });
    await vi.waitFor(() => expect(live.policies).toEqual([{ id: 1, topic: "x", access: 1, allow: false }]));
    expect(kicks).toEqual([[42, "blocked"]]);
  });

  it("applies subscription updates to live sessions and tells the handler what they held before", async () => {
    const s = await registry();
    const c = client(s.port);
    const updates: [number, string[], string[]][] = [];
    c.setHandlers({
      subscriptionUpdate: (id, now, before) => updates.push([id, now.map((x) => x.topic), before.map((x) => x.topic)]),
    });
    const live = { ...session, subscriptions: [{ topic: "old", qos: 0 }] };
    c.sessionOpened(live, { clientIp: "", keepAlive: 0 });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    s.push({ case: "subscriptionUpdate", value: { deviceIntId: 42n, subscriptions: [{ topic: "cfg/#", qos: 2 }] } });
    await vi.waitFor(() => expect(live.subscriptions).toEqual([{ topic: "cfg/#", qos: 1 }]));
    expect(updates).toEqual([[42, ["cfg/#"], ["old"]]]);
  });
});
