/**
 * The gRPC registry client's device checks: Authenticate, AuthenticateBatch or AuthenticateCall on the stream, as
 * the registry takes them, and UNAVAILABLE when the registry cannot answer (down, too slow, queue full).
 */
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { metricValue } from "@iot/config";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import { freePort, streamKinds as kinds, useTestRegistries } from "./grpc-test-server.js";

const logger = pino({ level: "silent" });
const { cleanups, registry, client } = useTestRegistries();

describe("GrpcRegistryClient device checks", () => {
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

  it("fails authentication fast with UNAVAILABLE when nothing listens", async () => {
    const c = client(await freePort());
    const started = Date.now();
    const out = await c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token: "good" }, "");
    expect(out).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    expect(Date.now() - started).toBeLessThan(3500);
  });
});
