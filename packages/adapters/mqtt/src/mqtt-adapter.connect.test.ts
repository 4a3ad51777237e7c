import { connect as netConnect } from "node:net";
import mqttPacket from "mqtt-packet";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { GiveUpSignal, RegistryClient } from "@iot/adapter-core";
import { quietFor } from "@iot/config/testing";
import { DEVICES, closed, roundTrip, startHarness, type Harness } from "./test-support.js";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.stop();
});

describe("MQTT adapter: connecting", () => {
  it("accepts a device with its deviceID, username and token and reports the session opened", async () => {
    const client = await h.connect(DEVICES.a, { keepalive: 45 });
    expect(client.connected).toBe(true);
    await vi.waitFor(() => expect(h.registry.events.map((e) => e.type)).toEqual(["opened"]));
    const opened = h.registry.events[0]!;
    expect(opened.type === "opened" && opened.info).toEqual({ clientIp: "127.0.0.1", keepAlive: 45 });
    expect(h.registry.authAttempts[0]).toMatchObject({
      protocol: "mqtt",
      clientIp: "127.0.0.1",
      credentials: { kind: "token", clientId: "dev-a", username: "user-a", token: "token-a" },
    });
  });

  it("refuses a wrong token with CONNACK 5", async () => {
    await expect(h.connect({ ...DEVICES.a, token: "wrong" })).rejects.toMatchObject({ code: 5 });
    expect(h.adapter.stats.authFailures).toBe(1);
  });

  it("refuses a blocked device with CONNACK 5", async () => {
    await expect(h.connect(DEVICES.blocked)).rejects.toMatchObject({ code: 5 });
  });

  it("refuses a client id that is not the device's deviceID with CONNACK 5", async () => {
    await expect(h.connect({ ...DEVICES.a, deviceId: "someone-else" })).rejects.toMatchObject({ code: 5 });
  });

  it("answers CONNACK 3 (server unavailable) when the registry cannot be reached", async () => {
    h.registry.unavailable = true;
    await expect(h.connect(DEVICES.a)).rejects.toMatchObject({ code: 3 });
  });

  it("keeps two tenants' devices with the same client id connected side by side", async () => {
    const t1 = await h.connect(DEVICES.a);
    const t2 = await h.connect(DEVICES.otherTenantA);
    // A take-over would have closed the first connection while the second was let in.
    await Promise.all([roundTrip(t1), roundTrip(t2)]);
    expect(t1.connected).toBe(true);
    expect(t2.connected).toBe(true);
    expect(h.adapter.stats.clients).toBe(2);
  });

  it("lets a device's new connection take over its old one and reports the old session closed", async () => {
    const old = await h.connect(DEVICES.a);
    const oldClosed = closed(old);
    await h.connect(DEVICES.a);
    await oldClosed;
    await vi.waitFor(() => expect(h.registry.events.map((e) => e.type)).toEqual(["opened", "closed", "opened"]));
  });

  it("reports the session closed when the device disconnects", async () => {
    const client = await h.connect(DEVICES.a);
    await client.endAsync();
    await vi.waitFor(() =>
      expect(h.registry.events.at(-1)).toMatchObject({ type: "closed", reason: "client disconnected" }),
    );
    expect(h.registry.liveSessions()).toEqual([]);
  });

  it("closes the connection at once when the registry kicks the device", async () => {
    const client = await h.connect(DEVICES.a);
    const other = await h.connect(DEVICES.b);
    await vi.waitFor(() => expect(h.adapter.stats.clients).toBe(2));
    h.registry.kick(DEVICES.a.deviceIntId, "device blocked");
    await closed(client);
    await vi.waitFor(() =>
      expect(h.registry.events.at(-1)).toMatchObject({ type: "closed", reason: "kicked: device blocked" }),
    );
    expect(other.connected).toBe(true);
  });

  it("reports every session closed when the adapter shuts down", async () => {
    await h.connect(DEVICES.a);
    await vi.waitFor(() => expect(h.adapter.stats.clients).toBe(1));
    await h.adapter.close();
    expect(h.registry.events.at(-1)).toMatchObject({ type: "closed", reason: "adapter shutting down" });
  });

  it("closes only the socket that sent garbage while other devices keep working", async () => {
    const good = await h.connect(DEVICES.a);
    const raw = netConnect(h.tcp.port, "127.0.0.1");
    const rawClosed = new Promise<void>((resolve) => raw.on("close", () => resolve()));
    raw.on("error", () => undefined);
    raw.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    await rawClosed;
    await good.publishAsync("data", "still here", { qos: 1 });
    expect(good.connected).toBe(true);
    expect(h.registry.uplinks.map((u) => Buffer.from(u.payload).toString())).toEqual(["still here"]);
  });

  it("closes an authenticated connection that sends a malformed packet, and only that one", async () => {
    const good = await h.connect(DEVICES.b);
    const bad = await h.connect(DEVICES.a);
    const badClosed = closed(bad);
    (bad as unknown as { stream: NodeJS.WritableStream }).stream.write(
      Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x7f]),
    );
    await badClosed;
    await good.publishAsync("data", "ok", { qos: 1 });
    expect(good.connected).toBe(true);
  });
});

describe("MQTT adapter: concurrent connections of one client id", () => {
  /** CONNECT (clean, keepalive 30) and SUBSCRIBE inbox QoS 1, as one write. */
  const connectAndSubscribe = (d: typeof DEVICES.a) =>
    Buffer.concat([
      mqttPacket.generate({
        cmd: "connect",
        protocolId: "MQTT",
        protocolVersion: 4,
        clean: true,
        keepalive: 30,
        clientId: d.deviceId,
        username: d.username,
        password: Buffer.from(d.token),
      }),
      mqttPacket.generate({ cmd: "subscribe", messageId: 1, subscriptions: [{ topic: "inbox", qos: 1 }] }),
    ]);

  /** Opens a raw connection that sends CONNECT+SUBSCRIBE and hangs up after `lingerMs`. */
  const rawDevice = (port: number, lingerMs: number) =>
    new Promise<void>((resolve) => {
      const socket = netConnect(port, "127.0.0.1", () => socket.write(connectAndSubscribe(DEVICES.a)));
      socket.on("error", () => undefined);
      setTimeout(() => socket.destroy(), lingerMs);
      socket.on("close", () => resolve());
    });

  /** Sessions the registry was told are open: opened minus closed, by session id. */
  const openSessions = () => {
    const open = new Set<string>();
    for (const e of h.registry.events)
      if (e.type === "opened") open.add(e.session.sessionId);
      else open.delete(e.session.sessionId);
    return open;
  };

  it("tells the registry client when a device waiting for its authentication has hung up", async () => {
    const signals: GiveUpSignal[] = [];
    let answer = () => {};
    const authenticate = h.registry.authenticate.bind(h.registry);
    const registry: RegistryClient = h.registry;
    vi.spyOn(registry, "authenticate").mockImplementation((protocol, credentials, clientIp, signal) => {
      if (signal) signals.push(signal);
      return new Promise((resolve) => (answer = () => resolve(authenticate(protocol, credentials, clientIp))));
    });
    const socket = netConnect(h.tcp.port, "127.0.0.1", () => socket.write(connectAndSubscribe(DEVICES.a)));
    socket.on("error", () => undefined);
    await vi.waitFor(() => expect(signals).toHaveLength(1));
    expect(signals[0]!.aborted).toBe(false);
    socket.destroy();
    await vi.waitFor(() => expect(signals[0]!.aborted).toBe(true));
    answer();
    await vi.waitFor(() => expect(h.adapter.stats.clients).toBe(0));
    expect(h.registry.events.filter((e) => e.type === "opened")).toHaveLength(0);
  });

  it("reports every session it opened as closed when racing connects of one client id all hang up", async () => {
    h.registry.authJitterMs = 15;
    for (let round = 0; round < 20; round++) {
      await Promise.all([0, 1, 2].map(() => rawDevice(h.tcp.port, Math.random() * 300)));
    }
    await vi.waitFor(() => expect(h.adapter.stats.clients).toBe(0), { timeout: 5000 });
    await vi.waitFor(() => {
      expect(openSessions()).toEqual(new Set());
      expect(h.registry.liveSessions()).toEqual([]);
      const opened = h.registry.events.filter((e) => e.type === "opened").length;
      expect(h.registry.events.filter((e) => e.type === "closed").length).toBe(opened);
    });
  });

  it("leaves exactly the last connection's session open when racing connects end with one that stays", async () => {
    h.registry.authJitterMs = 15;
    for (let round = 0; round < 10; round++) {
      await Promise.all([0, 1, 2].map(() => rawDevice(h.tcp.port, Math.random() * 300)));
    }
    const last = await h.connect(DEVICES.a);
    await last.subscribeAsync("inbox", { qos: 1 });
    await vi.waitFor(() => expect(openSessions().size).toBe(1), { timeout: 5000 });
    await quietFor(200, "a late racing connect would open or close a session within this");
    expect(openSessions().size).toBe(1);
    expect(h.registry.liveSessions()).toHaveLength(1);
    expect(h.adapter.stats.clients).toBe(1);
    // The one live session is the device's: a command reaches it.
    const outcome = await h.registry.pushDownlink({ deviceIntId: DEVICES.a.deviceIntId, payload: Buffer.from("hi") });
    expect(outcome.status).toBe("DELIVERED");
  });
});
