import { CompiledQuery } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { queryCounter } from "../store/test-query-counter.js";
import { createDevice } from "../domain/devices.js";
import { createDevices } from "../domain/create-devices.js";
import { mapConcurrently } from "../grpc/map-concurrently.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { CommandRouter } from "./commands.js";
import { PUBLISH_STATUS } from "./publish-status.js";
import { pendingCommandsQuery } from "./pending-commands.js";
import { routerSetup, TTL } from "./test-command-router.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("queued commands sent when sessions open on $name", (engine) => {
  it("sends the queued commands of several devices whose sessions opened together, oldest first", async () => {
    const { caller, sessions, router, device } = await routerSetup(engine);
    const [a, b, idle] = [await device("m1"), await device("m2"), await device("m3")];
    await router.publish(caller, { deviceIntId: a.id, payload: "a1", qos: 1 }, 1_000);
    await router.publish(caller, { deviceIntId: b.id, payload: "b1", qos: 1 }, 1_000);
    await router.publish(caller, { deviceIntId: a.id, payload: "a2", qos: 1 }, 1_000);
    await router.publish(caller, { deviceIntId: idle.id, payload: "not yet", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(a.id);
    adapter.open(b.id);
    expect(await router.deliverPending([a.id, b.id], 2_000)).toBe(3);
    expect(adapter.sent.map((c) => c.payload)).toEqual(["a1", "b1", "a2"]);
  });

  it("sends the queued commands of more devices than one IN list holds, every one once and oldest first", async () => {
    const { db, caller, sessions, router, product } = await routerSetup(engine);
    // Made in one batch and published eight at a time: one by one, they took PostgreSQL 15 s on a busy machine.
    const names = Array.from({ length: 530 }, (_, i) => `many-${i}`);
    const made = await createDevices(
      db,
      caller,
      names.map((name) => ({
        productId: product.productId,
        deviceName: name,
        deviceId: name,
        upLinkSystem: 1,
        authType: 1,
      })),
    );
    const devices = made.map((m, i) => {
      if (!("id" in m)) throw m.error;
      return { id: m.id, deviceId: names[i]! };
    });
    const commands = await mapConcurrently(devices, 8, (d) =>
      router.publish(caller, { deviceIntId: d.id, payload: d.deviceId, qos: 1 }, 1_000),
    );
    const adapter = fakeAdapterLink(sessions);
    for (const d of devices) adapter.open(d.id);
    expect(
      await router.deliverPending(
        devices.map((d) => d.id),
        2_000,
      ),
    ).toBe(530);
    // Issued at one time, so "oldest" is the order of issue: the commands' ids.
    const oldestFirst = devices
      .map((d, i) => ({ id: commands[i]!.id, payload: d.deviceId }))
      .sort((x, y) => x.id - y.id);
    expect(adapter.sent.map((c) => c.payload)).toEqual(oldestFirst.map((c) => c.payload));
  });

  it("builds its lookup of queued commands once, whatever the number of devices whose sessions opened", async () => {
    const { db, sessions } = await routerSetup(engine);
    const built = queryCounter();
    const router = new CommandRouter(db.withPlugin(built.plugin), sessions, TTL, { inFlightGraceMs: 10_000 });
    // Lists of 1 to 8 devices share queryIn's shortest IN list: one SQL text, built once. kysely built it each time.
    for (let n = 1; n <= 8; n++)
      await router.deliverPending(
        Array.from({ length: n }, (_, i) => 1_000 + i),
        2_000,
      );
    expect(built.count).toBe(1);
  });

  it("keeps a command for an offline device issued and sends it once when a session opens", async () => {
    const { caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("v1");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "open", qos: 1 }, 1_000);
    expect(r.publishStatus).toBe(PUBLISH_STATUS.issued);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    expect(adapter.sent).toEqual([
      { id: r.id, deviceIntId: d.id, topic: "inbox", payload: "open", qos: 1, expiresAt: 1_000 + TTL },
    ]);
    // Announced again on the same stream: not sent twice.
    expect(await router.deliverPending([d.id], 2_500)).toBe(0);
    expect(adapter.sent).toHaveLength(1);
    await router.settle(r.id, PUBLISH_STATUS.delivered);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.delivered);
  });

  it("sends in order of issue, and again down a new stream of a reconnected adapter while still unanswered", async () => {
    const { caller, sessions, router, device } = await routerSetup(engine);
    const d = await device("v2");
    const a = await router.publish(caller, { deviceIntId: d.id, payload: "one", qos: 1 });
    const b = await router.publish(caller, { deviceIntId: d.id, topic: "cfg/rate", payload: "two", qos: 0 });
    const first = fakeAdapterLink(sessions);
    first.open(d.id);
    await router.deliverPending([d.id]);
    expect(first.sent.map((s) => [s.id, s.topic, s.qos])).toEqual([
      [a.id, "inbox", 1],
      [b.id, "cfg/rate", 0],
    ]);
    sessions.detach(first.link);
    const second = fakeAdapterLink(sessions); // same instance, new stream: its answers of the old one may be lost
    second.open(d.id);
    expect(await router.deliverPending([d.id])).toBe(2);
    expect(second.sent.map((s) => s.id)).toEqual([a.id, b.id]);
  });

  it("sends a queued command for a device behind a gateway through the gateway's session when the gateway connects", async () => {
    const { db, caller, sessions, router, product } = await routerSetup(engine);
    const gw = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "gw",
      deviceType: 2,
      authType: 1,
    });
    const child = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "c",
      deviceId: "child-9",
      upLinkSystem: 2,
      gateway: gw.id,
      authType: 1,
    });
    const r = await router.publish(caller, { deviceIntId: child.id, topic: "relay", payload: "on", qos: 1 });
    const adapter = fakeAdapterLink(sessions);
    adapter.open(gw.id);
    expect(await router.deliverPending([gw.id])).toBe(1);
    expect(adapter.sent).toEqual([
      expect.objectContaining({ id: r.id, deviceIntId: gw.id, topic: "devices/child-9/relay", payload: "on" }),
    ]);
  });
});

describe("queued commands of connecting devices on SQLite", () => {
  it("are found through the devices' index, not by reading every issued command of the service", async () => {
    const { store } = await engines[0]!.open();
    expect(store.engine).toBe("sqlite");
    const { sql, parameters } = pendingCommandsQuery(store.db, [1, 2, 3], 0).compile();
    const plan = await store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${sql}`, [...parameters]),
    );
    const details = plan.rows.map((r) => r.detail);
    expect(details).toContain("SEARCH l USING INDEX control_logs_device_int_id_id (device_int_id=?)");
    expect(details.join("\n")).not.toContain("control_logs_issued");
  });
});
