import { nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IMEI, memoryHarness, type Harness } from "./memory-harness.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
  vi.useRealTimers();
});

describe("LwM2M registration interface", () => {
  it("registers a known endpoint: 2.01 with Location-Path rd/<id> and the session opened with the lifetime", async () => {
    h = memoryHarness({ client: { lifetime: 120 } });
    const res = await h.client.register();
    expect(res.code).toBe("2.01");
    expect(res.locationPath[0]).toBe("rd");
    expect(res.locationPath[1]).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(h.registry.authAttempts[0]).toMatchObject({
      protocol: "lwm2m",
      credentials: { kind: "lwm2m", endpoint: IMEI },
    });
    expect(h.registry.events).toMatchObject([{ type: "opened", info: { clientIp: "10.0.0.2", keepAlive: 135 } }]);
    expect(h.server.registrations.size).toBe(1);
  });

  it("takes the endpoint in its urn:imei: form", async () => {
    h = memoryHarness({ client: { endpoint: `urn:imei:${IMEI}` } });
    expect((await h.client.register()).code).toBe("2.01");
    expect(h.registry.authAttempts[0]!.credentials).toEqual({ kind: "lwm2m", endpoint: IMEI });
  });

  it("answers 4.03 to an unknown or blocked endpoint and 5.03 with Max-Age 1 while the registry cannot be asked", async () => {
    h = memoryHarness({ client: { endpoint: "123456789012345" } });
    expect((await h.client.register()).code).toBe("4.03");
    h.close();
    h = memoryHarness({ device: { blocked: true } });
    expect((await h.client.register()).code).toBe("4.03");
    h.close();
    h = memoryHarness();
    h.registry.unavailable = true;
    // Max-Age 1: register again in a second, not after CoAP's default of 60 s.
    expect(await h.client.register()).toMatchObject({ code: "5.03", maxAge: 1 });
    expect(h.registry.events).toEqual([]);
  });

  it("answers 4.00 to a Register without an endpoint name, and 4.04 to other resources", async () => {
    h = memoryHarness();
    const layer = h.link.device as import("@iot/adapter-coap").MessageLayer;
    const noEp = await layer.request(h.link.serverPeer, { method: "POST", path: ["rd"], query: ["lt=60"] });
    expect(noEp.code).toBe("4.00");
    const other = await layer.request(h.link.serverPeer, { method: "GET", path: ["3", "0"] });
    expect(other.code).toBe("4.04");
  });

  it("updates a registration (2.04) and answers 4.04 for an unknown location", async () => {
    h = memoryHarness();
    await h.client.register();
    expect((await h.client.update(["lt=600"], true)).code).toBe("2.04");
    const id = h.client.location![1]!;
    expect(h.server.registrations.get(id)!.lifetime).toBe(600);
    h.client.location = ["rd", "nope"];
    expect((await h.client.update()).code).toBe("4.04");
    expect((await h.client.deregister()).code).toBe("4.04");
  });

  it("de-registers: 2.02, the session closed as de-registered, the location gone", async () => {
    h = memoryHarness();
    await h.client.register();
    expect((await h.client.deregister()).code).toBe("2.02");
    expect(h.registry.events.at(-1)).toMatchObject({ type: "closed", reason: "de-registered" });
    expect(h.server.registrations.size).toBe(0);
    expect((await h.client.update()).code).toBe("4.04");
  });

  it("expires a registration after its lifetime plus the grace unless an Update refreshes it", async () => {
    vi.useFakeTimers();
    h = memoryHarness({ client: { lifetime: 60 }, server: { lifetimeGraceSeconds: 5 } });
    await h.client.register();
    await vi.advanceTimersByTimeAsync(50_000);
    expect((await h.client.update()).code).toBe("2.04");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.server.registrations.size).toBe(1);
    await vi.advanceTimersByTimeAsync(6_000);
    expect(h.server.registrations.size).toBe(0);
    expect(h.registry.events.at(-1)).toMatchObject({ type: "closed", reason: "lifetime expired" });
  });

  it("replaces the registration of an endpoint that registers again", async () => {
    h = memoryHarness();
    await h.client.register();
    const first = h.client.location![1];
    await h.client.register();
    const second = h.client.location![1];
    expect(second).not.toBe(first);
    expect(h.server.registrations.size).toBe(1);
    expect(h.registry.events.map((e) => e.type)).toEqual(["opened", "closed", "opened"]);
    h.client.location = ["rd", first!];
    expect((await h.client.update()).code).toBe("4.04");
  });

  it("keeps one registration when an endpoint sends two Registers at once", async () => {
    h = memoryHarness({ deviceLayer: { nstart: 2 } });
    const answers = await Promise.all([h.client.register(), h.client.register()]);
    expect(answers.map((a) => a.code)).toEqual(["2.01", "2.01"]);
    expect(h.server.registrations.size).toBe(1);
    expect(h.registry.authAttempts.length).toBe(1);
  });

  it("drops the registration when the registry kicks the device", async () => {
    h = memoryHarness();
    await h.client.register();
    h.registry.kick(7, "blocked");
    expect(h.server.registrations.size).toBe(0);
    expect(h.registry.events.at(-1)).toMatchObject({ type: "closed", reason: "kicked: blocked" });
    expect((await h.client.update()).code).toBe("4.04");
  });

  it("drops malformed datagrams without an answer and keeps serving", async () => {
    h = memoryHarness();
    const answers: Buffer[] = [];
    h.link.server.handle(Buffer.from([0xff, 0x00]), h.link.devicePeer, (d) => answers.push(d));
    h.link.server.handle(Buffer.from([0x50, 0x02, 0x00]), h.link.devicePeer, (d) => answers.push(d));
    await nextTurn();
    expect(answers).toEqual([]);
    expect(h.registry.authAttempts).toEqual([]);
    expect((await h.client.register()).code).toBe("2.01");
  });
});

describe("LwM2M queue mode", () => {
  it("puts a UQ client to sleep after the awake time and wakes it on Update, sending the command that waited", async () => {
    vi.useFakeTimers();
    h = memoryHarness({ client: { binding: "UQ" }, server: { queueAwakeSeconds: 10 } });
    await h.client.register();
    await vi.advanceTimersByTimeAsync(11_000);
    expect(h.registry.events.at(-1)).toMatchObject({ type: "state", sleeping: true });
    const command = h.registry.pushDownlink({
      deviceIntId: 7,
      payload: Buffer.from(JSON.stringify({ reqID: 1, msgType: "read", data: { path: "/3/0/0" } })),
      expiresAtMs: Date.now() + 60_000,
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(h.client.requests).toEqual([]);
    expect((await h.client.update()).code).toBe("2.04");
    await vi.advanceTimersByTimeAsync(10);
    expect(h.registry.events.at(-1)).toMatchObject({ type: "state", sleeping: false });
    expect(await command).toEqual({ status: "DELIVERED" });
    expect(h.client.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /3/0/0"]);
    expect(h.uplinks("up/resp")[0]).toMatchObject({ reqID: 1, data: { code: "2.05" } });
  });

  it("fails a command that waited past its expiry while the device slept", async () => {
    vi.useFakeTimers();
    h = memoryHarness({
      client: { version: "1.1", binding: "U", queueParameter: true },
      server: { queueAwakeSeconds: 1 },
    });
    await h.client.register();
    await vi.advanceTimersByTimeAsync(2_000);
    const command = h.registry.pushDownlink({
      deviceIntId: 7,
      payload: Buffer.from(JSON.stringify({ reqID: 2, msgType: "read", data: { path: "/3/0/0" } })),
      expiresAtMs: Date.now() + 5_000,
    });
    await vi.advanceTimersByTimeAsync(6_000);
    expect(await command).toEqual({ status: "FAILED", message: "expired while the device slept" });
    expect(h.client.requests).toEqual([]);
  });

  it("keeps a client without queue mode awake", async () => {
    vi.useFakeTimers();
    h = memoryHarness({ server: { queueAwakeSeconds: 1 } });
    await h.client.register();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(h.registry.events.filter((e) => e.type === "state")).toEqual([]);
  });
});
