import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DeviceLeases, type DeviceLeasesOptions } from "./device-leases.js";
import { Lease, type LeaseRefusal } from "./lease.js";
import { FakeRegistryClient } from "./fake-registry-client.js";
import type { DeviceCredentials, Downlink } from "./registry-client.js";

const device = {
  deviceIntId: 1,
  deviceId: "dev-1",
  username: "u1",
  token: "t1",
  policies: [{ id: 1, topic: "secret/#", access: 3 as const, allow: false }],
};
const creds: DeviceCredentials = { kind: "token", clientId: "dev-1", username: "u1", token: "t1" };

function setup(keepAliveSeconds = 60, devices = [device], options: Partial<DeviceLeasesOptions> = {}) {
  const registry = new FakeRegistryClient({ devices });
  registry.start();
  const leases = new DeviceLeases({
    registry,
    protocol: "http",
    logger: pino({ level: "silent" }),
    keepAliveSeconds,
    policyDefault: "allow",
    ...options,
  });
  registry.setHandlers(leases.handlers());
  return { registry, leases };
}

async function lease(leases: DeviceLeases): Promise<Lease> {
  const l = await leases.acquire(creds, "10.0.0.9");
  if (!(l instanceof Lease)) throw new Error(`refused: ${JSON.stringify(l)}`);
  return l;
}

const cmd = (over: Partial<Downlink> = {}) => ({ deviceIntId: 1, payload: new Uint8Array(Buffer.from("on")), ...over });

afterEach(() => {
  vi.useRealTimers();
});

describe("DeviceLeases", () => {
  it("opens one session for concurrent first requests and reuses it without asking the registry again", async () => {
    const { registry, leases } = setup();
    const [a, b] = await Promise.all([lease(leases), lease(leases)]);
    const c = await lease(leases);
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(registry.authAttempts).toHaveLength(1);
    expect(registry.events.map((e) => e.type)).toEqual(["opened"]);
    expect(registry.events[0]).toMatchObject({ info: { clientIp: "10.0.0.9", keepAlive: 60 } });
  });

  it("forgets a closed lease alone: its device's next request opens a new session, the others keep theirs", async () => {
    const devices = [1, 2, 3].map((i) => ({ ...device, deviceIntId: i, deviceId: `dev-${i}`, username: `u${i}` }));
    const { registry, leases } = setup(60, devices);
    const credsOf = (i: number): DeviceCredentials => ({ ...creds, clientId: `dev-${i}`, username: `u${i}` });
    const open = async (i: number) => (await leases.acquire(credsOf(i), "10.0.0.9")) as Lease;
    const [one, two, three] = [await open(1), await open(2), await open(3)];
    two.close("gone");
    expect(leases.size).toBe(2);
    expect(await open(1)).toBe(one);
    expect(await open(3)).toBe(three);
    const again = await open(2);
    expect(again).not.toBe(two);
    expect(again.closed).toBe(false);
    expect(registry.authAttempts.map((a) => (a.credentials as { clientId: string }).clientId)).toEqual([
      "dev-1",
      "dev-2",
      "dev-3",
      "dev-2",
    ]);
    leases.closeAll("stop");
    expect(leases.size).toBe(0);
  });

  it("gives a device one lease whatever form of its credentials it presents, with onePerDevice", async () => {
    const { registry, leases } = setup(60, [device], { onePerDevice: true });
    const bare: DeviceCredentials = { ...creds, clientId: "" };
    const [a, b] = await Promise.all([leases.acquire(creds, "10.0.0.9"), leases.acquire(bare, "10.0.0.9")]);
    expect(b).toBe(a);
    expect(leases.openLease(bare)).toBe(a);
    expect(await leases.acquire(creds, "10.0.0.9")).toBe(a);
    expect(registry.authAttempts).toHaveLength(2); // each form is checked once
    expect(registry.events.map((e) => e.type)).toEqual(["opened"]);
    expect(leases.size).toBe(1);
    // A form the registry refuses gets no share of the open lease.
    expect(await leases.acquire({ ...creds, clientId: "dev-2" }, "")).toMatchObject({ kind: "auth" });
    // A command reaches the consumer registered through either form.
    const got: string[] = [];
    (a as Lease).consume(
      "inbox",
      async (d) => (got.push(Buffer.from(d.payload).toString()), { status: "DELIVERED" }),
      () => {},
    );
    expect(await registry.pushDownlink(cmd())).toEqual({ status: "DELIVERED" });
    expect(got).toEqual(["on"]);
    (a as Lease).close("gone");
    expect(leases.size).toBe(0);
    expect(leases.openLease(creds)).toBeUndefined();
    expect(leases.openLease(bare)).toBeUndefined();
    const next = await leases.acquire(bare, "10.0.0.9");
    expect(next).not.toBe(a);
    expect(registry.events.map((e) => e.type)).toEqual(["opened", "closed", "opened"]);
  });

  it("keeps a lease per form of credentials without onePerDevice (a LoRa device's new session replaces its old)", async () => {
    const { registry, leases } = setup();
    const a = await leases.acquire(creds, "10.0.0.9");
    const b = await leases.acquire({ ...creds, clientId: "" }, "10.0.0.9");
    expect(b).not.toBe(a);
    expect(registry.events.map((e) => e.type)).toEqual(["opened", "opened"]);
  });

  it("refuses wrong credentials with the registry's code and opens nothing", async () => {
    const { registry, leases } = setup();
    const r = (await leases.acquire({ ...creds, token: "nope" }, "")) as LeaseRefusal;
    expect(r).toMatchObject({ kind: "auth", code: "BAD_CREDENTIALS" });
    expect(registry.events).toEqual([]);
  });

  it("publishes after the durable write and refuses bad topics and denied ones without sending", async () => {
    const { registry, leases } = setup();
    const l = await lease(leases);
    expect(await l.publish("telemetry", new Uint8Array([1]), 1)).toBeUndefined();
    expect(await l.publish("secret/x", new Uint8Array([1]), 1)).toMatchObject({ kind: "policy" });
    expect(await l.publish("a/+", new Uint8Array([1]), 1)).toMatchObject({ kind: "topic" });
    expect(registry.uplinks.map((u) => u.topic)).toEqual(["telemetry"]);
    expect(registry.uplinks[0]).toMatchObject({ clientIp: "10.0.0.9", deviceIntId: 1, qos: 1 });
  });

  it("publishes without a promise: a refusal answered at once, an uplink settled once the registry acked it", async () => {
    const { registry, leases } = setup();
    const l = await lease(leases);
    registry.autoAck = false;
    const settled = vi.fn();
    expect(l.publishThen("secret/x", new Uint8Array([1]), 1, undefined, settled)).toMatchObject({ kind: "policy" });
    expect(l.publishThen("a/+", new Uint8Array([1]), 1, undefined, settled)).toMatchObject({ kind: "topic" });
    const resend = { id: "http:k1", maybe: true };
    expect(l.publishThen("telemetry", new Uint8Array([1]), 1, resend, settled)).toBeUndefined();
    await new Promise((r) => setImmediate(r));
    expect(settled).not.toHaveBeenCalled();
    expect(registry.ackAll()).toBe(1);
    expect(settled.mock.calls).toEqual([[undefined]]);
    expect(registry.uplinks).toHaveLength(1);
    expect(registry.uplinks[0]).toMatchObject({ topic: "telemetry", clientIp: "10.0.0.9", qos: 1, resend });
  });

  it("restarts the keepAlive countdown at every request of the device", async () => {
    vi.useFakeTimers();
    const { leases } = setup(30);
    const l = await lease(leases);
    for (let i = 0; i < 4; i++) {
      await vi.advanceTimersByTimeAsync(20_000);
      expect(l.publishThen("telemetry", new Uint8Array([1]), 1, undefined, () => undefined)).toBeUndefined();
    }
    expect(await lease(leases)).toBe(l);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(l.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(l.closed).toBe(true);
  });

  it("closes an idle lease after keepAlive, and not while it is held", async () => {
    vi.useFakeTimers();
    const { registry, leases } = setup(30);
    const l = await lease(leases);
    const release = l.hold();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(l.closed).toBe(false);
    release();
    await vi.advanceTimersByTimeAsync(29_000);
    expect(l.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(l.closed).toBe(true);
    expect(registry.events.at(-1)).toMatchObject({ type: "closed", reason: "keepalive expired" });
    expect(leases.size).toBe(0);
  });

  it("hands a command to a waiting consumer and reports what the consumer says", async () => {
    const { registry, leases } = setup();
    const l = await lease(leases);
    const got: string[] = [];
    l.consume(
      "inbox",
      async (d, topic) => (got.push(`${topic} ${Buffer.from(d.payload).toString()}`), { status: "DELIVERED" }),
      () => {},
      true,
    );
    expect(await registry.pushDownlink(cmd())).toEqual({ status: "DELIVERED" });
    expect(got).toEqual(["inbox on"]);
  });

  it("keeps a command in the inbox until a consumer comes, and a once-consumer takes only one", async () => {
    const { registry, leases } = setup();
    const l = await lease(leases);
    const first = registry.pushDownlink(cmd({ id: 1, payload: new Uint8Array(Buffer.from("a")) }));
    const second = registry.pushDownlink(cmd({ id: 2, payload: new Uint8Array(Buffer.from("b")) }));
    const got: string[] = [];
    const take = () =>
      l.consume(
        "inbox",
        async (d) => (got.push(Buffer.from(d.payload).toString()), { status: "DELIVERED" }),
        () => {},
        true,
      );
    take();
    expect(await first).toEqual({ status: "DELIVERED" });
    expect(got).toEqual(["a"]);
    take();
    expect(await second).toEqual({ status: "DELIVERED" });
    expect(got).toEqual(["a", "b"]);
  });

  it("gives a lease its own keepAlive, reports it, and closes it with the adapter's reason and listeners", async () => {
    vi.useFakeTimers();
    const registry = new FakeRegistryClient({ devices: [device] });
    const leases = new DeviceLeases({
      registry,
      protocol: "lwm2m",
      logger: pino({ level: "silent" }),
      keepAliveSeconds: 60,
      policyDefault: "allow",
      idleReason: "lifetime expired",
      expiredMessage: "expired while the device slept",
    });
    registry.setHandlers(leases.handlers());
    const l = await leases.acquire(creds, "10.0.0.9", 300);
    if (!(l instanceof Lease)) throw new Error("refused");
    expect(registry.events[0]).toMatchObject({ type: "opened", info: { keepAlive: 300 } });
    const reasons: string[] = [];
    l.onClose((r) => reasons.push(r));
    const expiring = registry.pushDownlink(cmd({ expiresAtMs: Date.now() + 1_000 }));
    await vi.advanceTimersByTimeAsync(1_500);
    expect(await expiring).toEqual({ status: "FAILED", message: "expired while the device slept" });
    l.setKeepAlive(10);
    await vi.advanceTimersByTimeAsync(9_000);
    expect(l.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reasons).toEqual(["lifetime expired"]);
    expect(registry.events.at(-1)).toMatchObject({ type: "closed", reason: "lifetime expired" });
  });

  it("fails a waiting command when it expires", async () => {
    const { registry, leases } = setup();
    await lease(leases);
    const expiring = registry.pushDownlink(cmd({ expiresAtMs: Date.now() + 50 }));
    expect(await expiring).toEqual({ status: "FAILED", message: "expired before the device asked for it" });
  });

  it("tells consumers when the lease is kicked, and keeps waiting commands for the device's next session", async () => {
    const { registry, leases } = setup();
    const l = await lease(leases);
    const waiting = registry.pushDownlink(cmd({ topic: "other" }));
    const closes: string[] = [];
    l.consume(
      "inbox",
      async () => ({ status: "DELIVERED" }),
      (reason) => closes.push(reason),
    );
    registry.kick(1, "device blocked");
    expect(closes).toEqual(["kicked: device blocked"]);
    expect(registry.events.at(-1)).toMatchObject({ type: "closed", reason: "kicked: device blocked" });
    const next = await lease(leases);
    expect(next).not.toBe(l);
    next.consume(
      "other",
      async () => ({ status: "DELIVERED" }),
      () => {},
      true,
    );
    expect(await waiting).toEqual({ status: "DELIVERED" });
  });

  it("refuses a consumer on a filter the policies deny, and a command on a denied topic", async () => {
    const { registry, leases } = setup();
    const l = await lease(leases);
    expect(
      l.consume(
        "secret/#",
        async () => ({ status: "DELIVERED" }),
        () => {},
      ),
    ).toMatchObject({ kind: "policy" });
    expect(await registry.pushDownlink(cmd({ topic: "secret/x" }))).toMatchObject({ status: "FAILED" });
  });

  it("fails a command for a device with no lease here", async () => {
    const { registry } = setup();
    expect(await registry.pushDownlink(cmd())).toEqual({
      status: "FAILED",
      message: "device is not connected to this adapter",
    });
  });
});
