import { createServer } from "node:net";
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { metricValue } from "@iot/config";
import { grpc } from "@iot/proto";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import type { DeviceSession } from "./registry-client.js";
import {
  TEST_SESSION as session,
  startTestRegistry,
  testUplink as uplink,
  type TestRegistryServer,
  useTestRegistries,
} from "./grpc-test-server.js";

const logger = pino({ level: "silent" });
const { cleanups, registry } = useTestRegistries();

function client(port: number, bufferLimit?: number): GrpcRegistryClient {
  const c = new GrpcRegistryClient({
    address: `127.0.0.1:${port}`,
    protocol: "mqtt",
    logger,
    bufferLimit,
    backoff: { initialMs: 50, maxMs: 200 },
  });
  cleanups.push(() => c.close());
  return c;
}

const kinds = (s: TestRegistryServer, i: number) => s.streams[i]!.received.map((m) => m.kind.case);
const seqs = (s: TestRegistryServer, i: number) =>
  s.streams[i]!.received.flatMap((m) => (m.kind.case === "uplink" ? [Number(m.kind.value.seq)] : []));

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe("GrpcRegistryClient", () => {
  it("sends Hello with every live session as the first message of the stream", async () => {
    const s = await registry();
    const c = client(s.port);
    c.sessionOpened(session, { clientIp: "10.0.0.1", keepAlive: 60 });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const first = s.streams[0]!.received[0]!;
    expect(first.kind.case).toBe("hello");
    if (first.kind.case !== "hello") return;
    expect(first.kind.value.instanceId).toBe(c.instanceId);
    expect(first.kind.value.instanceId).toMatch(/^mqtt-.+-[0-9a-f]{8}$/);
    expect(first.kind.value.sessions.map((x) => [x.sessionId, Number(x.deviceIntId), x.keepAlive])).toEqual([
      ["s1", 42, 60],
    ]);
  });

  it("resolves publish only after the registry acked that uplink's seq", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port);
    c.start();
    let acked = false;
    const p = c.publish(uplink("data")).then(() => (acked = true));
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1]));
    await new Promise((r) => setTimeout(r, 50));
    expect(acked).toBe(false);
    s.push({ case: "uplinkAck", value: { seqs: [1n] } });
    await p;
    expect(c.pendingUplinks).toBe(0);
  });

  it("sends the uplinks of one turn of the event loop as one UplinkBatch in seq order to a registry that takes them", async () => {
    const s = await registry();
    s.uplinkBatches = true;
    const c = client(s.port);
    c.sessionOpened(session, { clientIp: "10.0.0.1", keepAlive: 60 });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const published = ["a", "b", "c"].map((t) => c.publish(uplink(t)));
    c.sessionClosed(session, "gone"); // goes after the uplinks queued before it
    await Promise.all(published);
    await c.publish(uplink("alone"));
    const sent = s.streams[0]!.received.slice(1);
    expect(sent.map((m) => m.kind.case)).toEqual(["uplinkBatch", "sessionClosed", "uplink"]);
    const batch = sent[0]!.kind.case === "uplinkBatch" ? sent[0]!.kind.value.uplinks : [];
    expect(batch.map((u) => [Number(u.seq), u.topic])).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
    expect(c.pendingUplinks).toBe(0);
  });

  it("sends the sessions opened in one turn of the event loop as one SessionOpenedBatch to a registry that takes them, before their uplinks", async () => {
    const s = await registry();
    s.sessionOpenedBatches = true;
    s.uplinkBatches = true;
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const opened = (id: string) => ({ ...session, sessionId: id });
    for (const id of ["s1", "s2", "s3"]) c.sessionOpened(opened(id), { clientIp: "10.0.0.1", keepAlive: 60 });
    await c.publish(uplink("a"));
    c.sessionOpened(opened("s4"), { clientIp: "10.0.0.2", keepAlive: 30 });
    c.sessionClosed(opened("s4"), "gone"); // its SessionOpened goes first
    await vi.waitFor(() => expect(kinds(s, 0)).toContain("sessionClosed"));
    const sent = s.streams[0]!.received.slice(1);
    expect(sent.map((m) => m.kind.case)).toEqual(["sessionOpenedBatch", "uplink", "sessionOpened", "sessionClosed"]);
    const batch = sent[0]!.kind.case === "sessionOpenedBatch" ? sent[0]!.kind.value.sessions : [];
    expect(batch.map((o) => [o.sessionId, Number(o.deviceIntId), o.clientIp, o.keepAlive])).toEqual([
      ["s1", 42, "10.0.0.1", 60],
      ["s2", 42, "10.0.0.1", 60],
      ["s3", 42, "10.0.0.1", 60],
    ]);
  });

  it("sends each SessionOpened alone to a registry that does not say it takes batches", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    for (const id of ["s1", "s2"]) c.sessionOpened({ ...session, sessionId: id }, { clientIp: "", keepAlive: 0 });
    await vi.waitFor(() => expect(kinds(s, 0)).toEqual(["hello", "sessionOpened", "sessionOpened"]));
  });

  it("sends each uplink alone to a registry that does not say it takes batches", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    await Promise.all(["a", "b"].map((t) => c.publish(uplink(t))));
    expect(kinds(s, 0)).toEqual(["hello", "uplink", "uplink"]);
    expect(seqs(s, 0)).toEqual([1, 2]);
  });

  it("replays unacked uplinks with their original seqs after the registry drops the stream", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port);
    c.start();
    const ps = ["a", "b", "c"].map((t) => c.publish(uplink(t)));
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1, 2, 3]));
    s.push({ case: "uplinkAck", value: { seqs: [1n] } });
    await ps[0];
    s.latest()!.call.emit("error", { code: 14, details: "registry going away" });
    await vi.waitFor(() => expect(s.streams.length).toBe(2));
    await vi.waitFor(() => expect(seqs(s, 1)).toEqual([2, 3]));
    expect(kinds(s, 1)[0]).toBe("hello");
    s.push({ case: "uplinkAck", value: { seqs: [2n, 3n] } });
    await Promise.all(ps);
    const later = c.publish(uplink("d"));
    await vi.waitFor(() => expect(seqs(s, 1)).toEqual([2, 3, 4]));
    s.push({ case: "uplinkAck", value: { seqs: [4n] } });
    await later;
  });

  it("reconnects when the registry ends the stream normally", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    s.latest()!.call.end();
    await vi.waitFor(() => expect(s.streams.length).toBe(2));
    await vi.waitFor(() => expect(c.state).toBe("connected"));
  });

  it("survives a registry restart on the same port and delivers what was buffered meanwhile", async () => {
    const first = await startTestRegistry();
    const c = client(first.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    await first.stop();
    await vi.waitFor(() => expect(c.state).toBe("connecting"));
    const p = c.publish(uplink("while-down"));
    const second = await registry(first.port);
    await p;
    expect(kinds(second, second.streams.length - 1)[0]).toBe("hello");
    expect(seqs(second, second.streams.length - 1)).toEqual([1]);
  });

  it("drops uplinks the registry rejected instead of replaying them", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port);
    c.start();
    const p = c.publish(uplink("x"));
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1]));
    s.push({ case: "uplinkAck", value: { rejected: [{ seq: 1n, reason: "unknown device" }] } });
    await expect(p).rejects.toMatchObject({ code: "UPLINK_REJECTED" });
    expect(c.pendingUplinks).toBe(0);
  });

  it("rejects publish with BUFFER_FULL once the buffer limit is reached", async () => {
    const c = client(await freePort(), 2);
    c.start();
    void c.publish(uplink("a")).catch(() => undefined);
    void c.publish(uplink("b")).catch(() => undefined);
    await expect(c.publish(uplink("c"))).rejects.toMatchObject({ code: "BUFFER_FULL" });
  });

  it("publishThen with waitForRoom sends an uplink that found the buffer full once an ack makes room, in order", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port, 2);
    c.start();
    const calls: string[] = [];
    for (const topic of ["a", "b", "c"])
      c.publishThen(uplink(topic), (err) => calls.push(err ? err.message : topic), true);
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1, 2]));
    await new Promise((r) => setTimeout(r, 20));
    expect([seqs(s, 0), calls]).toEqual([[1, 2], []]);
    s.push({ case: "uplinkAck", value: { seqs: [1n] } });
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1, 2, 3]));
    s.push({ case: "uplinkAck", value: { seqs: [2n, 3n] } });
    await vi.waitFor(() => expect(calls).toEqual(["a", "b", "c"]));
    expect(c.pendingUplinks).toBe(0);
  });

  it("publishThen calls back once, after the registry acked the uplink, with no error", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port);
    c.start();
    const calls: (Error | undefined)[] = [];
    c.publishThen(uplink("data"), (err) => calls.push(err));
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1]));
    expect(calls).toEqual([]);
    s.push({ case: "uplinkAck", value: { seqs: [1n, 1n] } });
    await vi.waitFor(() => expect(calls).toEqual([undefined]));
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toEqual([undefined]);
  });

  it("publishThen calls back with the refusal on a later tick, never before it returns", async () => {
    const c = client(await freePort(), 1);
    c.start();
    c.publishThen(uplink("a"), () => undefined);
    const calls: (Error | undefined)[] = [];
    c.publishThen(uplink("b"), (err) => calls.push(err));
    expect(calls).toEqual([]);
    await vi.waitFor(() => expect(calls).toEqual([expect.objectContaining({ code: "BUFFER_FULL" })]));
  });

  it("authenticates through the registry and converts ids to numbers", async () => {
    const s = await registry();
    const c = client(s.port);
    const ok = await c.authenticate(
      "mqtt",
      { kind: "token", clientId: "dev-42", username: "u", token: "good" },
      "10.0.0.1",
    );
    expect(ok).toMatchObject({
      ok: true,
      session: { sessionId: "sess-1", device: { deviceIntId: 42, mountpoint: "t1/42/" } },
    });
    expect(ok.ok && ok.session.policies).toEqual([{ id: 7, topic: "secret/#", access: 3, allow: false }]);
    expect(ok.ok && ok.session.subscriptions).toEqual([{ topic: "config/#", qos: 1 }]);
    const blocked = await c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token: "blocked" }, "");
    expect(blocked).toMatchObject({ ok: false, code: "BLOCKED" });
  });

  it("checks the devices that connect at once in one AuthenticateBatch call, each answered its own outcome", async () => {
    const s = await registry();
    const c = client(s.port);
    const tokens = ["good", "blocked", "good", "bad", "quota"];
    const outcomes = await Promise.all(
      tokens.map((token) => c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token }, "")),
    );
    expect(outcomes.map((o) => (o.ok ? "ok" : o.code))).toEqual([
      "ok",
      "BLOCKED",
      "ok",
      "BAD_CREDENTIALS",
      "QUOTA_EXCEEDED",
    ]);
    expect(s.authCalls).toEqual({ single: 0, batches: 1, streamed: 0, requests: 5 });
  });

  it("authenticates one device per Authenticate call with a registry that does not know AuthenticateBatch", async () => {
    const s = await registry();
    s.authenticateBatches = false;
    const c = client(s.port);
    const ask = (token: string) => c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token }, "");
    expect((await Promise.all([ask("good"), ask("blocked")])).map((o) => o.ok)).toEqual([true, false]);
    expect(await ask("good")).toMatchObject({ ok: true });
    expect(s.authCalls).toEqual({ single: 3, batches: 0, streamed: 0, requests: 3 });
  });

  it("checks the devices that connect at once in one AuthenticateCall on the stream when its HelloAck says the registry answers there", async () => {
    const s = await registry();
    s.streamAuthentication = true;
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const tokens = ["good", "blocked", "bad", "good"];
    const outcomes = await Promise.all(
      tokens.map((token) => c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token }, "")),
    );
    expect(outcomes.map((o) => (o.ok ? "ok" : o.code))).toEqual(["ok", "BLOCKED", "BAD_CREDENTIALS", "ok"]);
    expect(outcomes[0]).toMatchObject({ ok: true, session: { sessionId: "sess-1", device: { deviceIntId: 42 } } });
    expect(s.authCalls).toEqual({ single: 0, batches: 0, streamed: 1, requests: 4 });
    expect(kinds(s, 0)).toEqual(["hello", "authenticate"]);
  });

  it("tells a device whose check went on a stream that then dropped that the registry is unreachable, and checks the next on the new stream", async () => {
    const s = await registry();
    s.streamAuthentication = true;
    s.answerStreamAuth = false;
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const ask = () => c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token: "good" }, "");
    const lost = ask();
    await vi.waitFor(() => expect(s.authCalls.streamed).toBe(1));
    s.latest()!.call.emit("error", { code: 14, details: "registry going away" });
    expect(await lost).toMatchObject({
      ok: false,
      code: "UNAVAILABLE",
      message: expect.stringContaining("going away"),
    });
    s.answerStreamAuth = true;
    await vi.waitFor(() => expect(s.streams.length).toBe(2));
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    expect(await ask()).toMatchObject({ ok: true });
    expect(s.authCalls).toMatchObject({ single: 0, batches: 0, streamed: 2 });
    expect(kinds(s, 1)).toContain("authenticate");
  });

  it("tells a device whose check on the stream got no answer within the deadline that the registry is unreachable", async () => {
    const s = await registry();
    s.streamAuthentication = true;
    s.answerStreamAuth = false;
    const c = new GrpcRegistryClient({ address: `127.0.0.1:${s.port}`, protocol: "mqtt", logger, authTimeoutMs: 200 });
    cleanups.push(() => c.close());
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const started = Date.now();
    const out = await c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token: "good" }, "");
    expect(out).toMatchObject({ ok: false, code: "UNAVAILABLE", message: expect.stringContaining("200 ms") });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(c.state).toBe("connected");
  });

  it("answers QUOTA_EXCEEDED for a tenant at its connection limit", async () => {
    const s = await registry();
    const out = await client(s.port).authenticate(
      "mqtt",
      { kind: "token", clientId: "", username: "u", token: "quota" },
      "",
    );
    expect(out).toMatchObject({ ok: false, code: "QUOTA_EXCEEDED" });
  });

  it("answers UNAVAILABLE at once, sending nothing, to a device arriving while authQueueLimit devices wait their turn", async () => {
    const s = await registry();
    s.streamAuthentication = true;
    s.answerStreamAuth = false;
    const c = new GrpcRegistryClient({
      address: `127.0.0.1:${s.port}`,
      protocol: "mqtt",
      logger,
      authConcurrency: 1,
      authBatchMax: 1,
      authQueueLimit: 2,
    });
    cleanups.push(() => c.close());
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const shed = () => metricValue("iot_adapter_authentications_total", { protocol: "mqtt", outcome: "queue_full" });
    const shedBefore = await shed();
    const ask = () => c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token: "good" }, "");
    void ask(); // in flight, never answered: the next ones wait their turn
    await vi.waitFor(() => expect(s.authCalls.streamed).toBe(1));
    void ask();
    void ask();
    expect(await ask()).toMatchObject({
      ok: false,
      code: "UNAVAILABLE",
      message: "authentication queue full (2 devices waiting)",
    });
    expect(s.authCalls).toMatchObject({ streamed: 1, requests: 1 });
    expect(await shed()).toBe(shedBefore + 1);
  });

  it("refuses uplinks over the tenant's rate from Authenticate without sending them, until a push lifts it", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const ok = await c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token: "limited" }, "");
    expect(ok.ok && ok.session.tenantUplinkRate).toBe(2);
    await c.publish(uplink("a"));
    await c.publish(uplink("b"));
    await expect(c.publish(uplink("c"))).rejects.toMatchObject({ code: "RATE_LIMITED" });
    await expect(c.publish({ ...uplink("other tenant"), tenantId: "t2" })).resolves.toBeUndefined();
    expect(seqs(s, 0)).toHaveLength(3);
    s.push({ case: "tenantLimits", value: { tenantId: "t1", maxUplinkRate: 0 } });
    await vi.waitFor(() => c.publish(uplink("d")));
    expect(seqs(s, 0)).toHaveLength(4);
  });

  it("fails authentication fast with UNAVAILABLE when nothing listens", async () => {
    const c = client(await freePort());
    const started = Date.now();
    const out = await c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token: "good" }, "");
    expect(out).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    expect(Date.now() - started).toBeLessThan(3500);
  });

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

  it("reports session open and close on the stream", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    c.sessionOpened(session, { clientIp: "10.0.0.1", keepAlive: 30 });
    c.sessionClosed(session, "client disconnected");
    await vi.waitFor(() => expect(kinds(s, 0)).toEqual(["hello", "sessionOpened", "sessionClosed"]));
  });

  it("asks for a listener certificate until the registry is reachable, then answers its PEMs", async () => {
    const port = await freePort();
    const c = client(port);
    const issued = c.issueListenerCertificate("csr-pem", ["localhost", "127.0.0.1"]);
    let settled = false;
    void issued.finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    const s = await registry(port);
    const seen: { csrPem: string; hostnames: string[]; adapterInstanceId: string }[] = [];
    s.issueListenerCertificate = (req) => {
      seen.push({ csrPem: req.csrPem, hostnames: req.hostnames, adapterInstanceId: req.adapterInstanceId });
      return { certPem: "cert", caPem: "ca" };
    };
    expect(await issued).toEqual({ certPem: "cert", caPem: "ca" });
    expect(seen).toEqual([
      { csrPem: "csr-pem", hostnames: ["localhost", "127.0.0.1"], adapterInstanceId: c.instanceId },
    ]);
  });

  it("rejects with REQUEST_REJECTED and the registry's reason when the registry refuses the request", async () => {
    const s = await registry();
    s.issueListenerCertificate = () => ({
      code: grpc.status.INVALID_ARGUMENT,
      details: "csrPem: not a PEM certificate request",
    });
    await expect(client(s.port).issueListenerCertificate("x", ["localhost"])).rejects.toMatchObject({
      name: "AdapterError",
      code: "REQUEST_REJECTED",
      message: "registry refused the listener certificate: csrPem: not a PEM certificate request",
    });
  });

  it("stops asking with CLIENT_CLOSED once the client is closed", async () => {
    const c = client(await freePort());
    const issued = c.issueListenerCertificate("x", ["localhost"]);
    await c.close();
    await expect(issued).rejects.toMatchObject({ code: "CLIENT_CLOSED" });
  });
});
