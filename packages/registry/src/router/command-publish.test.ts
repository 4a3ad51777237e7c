import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { PUBLISH_STATUS } from "./publish-status.js";
import { routerSetup } from "./test-command-router.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("publishing device commands on $name", (engine) => {
  it("sends at once to a connected device and does not send it again when the session is re-announced", async () => {
    const { caller, sessions, router, device } = await routerSetup(engine);
    const d = await device("v3");
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "now", qos: 1 });
    expect(adapter.sent.map((s) => s.id)).toEqual([r.id]);
    expect(await router.deliverPending([d.id])).toBe(0);
    expect(adapter.sent).toHaveLength(1);
  });

  it("records commands issued together in one batch, each under its own id, and sends each device its own in order", async () => {
    const { db, caller, sessions, router, device } = await routerSetup(engine);
    const [a, b] = [await device("b1"), await device("b2")];
    const adapter = fakeAdapterLink(sessions);
    adapter.open(a.id);
    adapter.open(b.id);
    const payloads = ["a1", "b1", "a2", "a3", "b2"];
    const issued = await Promise.all(
      payloads.map((payload) =>
        router.publish(caller, { deviceIntId: payload.startsWith("a") ? a.id : b.id, payload, qos: 1 }),
      ),
    );
    expect(new Set(issued.map((r) => r.id)).size).toBe(5);
    const stored = await db.selectFrom("controlLogs").select(["id", "deviceIntId", "payload"]).execute();
    for (const [i, r] of issued.entries())
      expect(stored.find((l) => l.id === r.id)).toMatchObject({
        payload: payloads[i],
        deviceIntId: payloads[i]!.startsWith("a") ? a.id : b.id,
      });
    // Concurrent calls may be recorded in any order (their device lookups race on a pool); each device's commands
    // go out in the order of their logs, each with its own payload.
    const sent = adapter.sent.map((c) => [c.id, c.payload]);
    expect([...sent].sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual(
      issued.map((r, i) => [r.id, payloads[i]]).sort((x, y) => Number(x[0]) - Number(y[0])),
    );
    for (const prefix of ["a", "b"]) {
      const ids = sent.filter(([, p]) => String(p).startsWith(prefix)).map(([id]) => Number(id));
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
    }
  });

  it("keeps a QoS 2 command's QoS to its adapter, issued until the device completed it, a new delivery after a give-back", async () => {
    const { db, caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("v2");
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "once", qos: 2 }, 1_000);
    expect(r.publishStatus).toBe(PUBLISH_STATUS.issued);
    expect(adapter.sent.map((c) => [c.id, c.qos])).toEqual([[r.id, 2]]);
    expect(
      (await db.selectFrom("controlLogs").select("qos").where("id", "=", r.id).executeTakeFirstOrThrow()).qos,
    ).toBe(2);
    // The device left before its PUBREC: the adapter gives the command back, and its next session gets it anew.
    sessions.close("mqtt-1", adapter.sessionIds.at(-1)!);
    await router.settle(r.id, PUBLISH_STATUS.issued, "device disconnected before its PUBREC", 2_000);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.issued);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 3_000)).toBe(1);
    expect(adapter.sent.map((c) => [c.id, c.qos])).toEqual([
      [r.id, 2],
      [r.id, 2],
    ]);
    await router.settle(r.id, PUBLISH_STATUS.delivered, "", 4_000);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.delivered);
  });

  it("does not send a command again to a session opening while the command's delivered report is being committed", async () => {
    const { caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("v4");
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "once", qos: 2 });
    const settled = router.settle(r.id, PUBLISH_STATUS.delivered);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id])).toBe(0);
    await settled;
    expect(await router.deliverPending([d.id])).toBe(0);
    expect(adapter.sent.map((c) => c.id)).toEqual([r.id]);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.delivered);
  });

  it("finds the device by its deviceID alone, and refuses a deviceIntId that is another device", async () => {
    const { caller, sessions, router, device } = await routerSetup(engine);
    const [d, other] = [await device("n1"), await device("n2")];
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    await router.publish(caller, { deviceId: "n1", payload: "by name", qos: 1 });
    expect(adapter.sent.map((c) => [c.deviceIntId, c.payload])).toEqual([[d.id, "by name"]]);
    await expect(
      router.publish(caller, { deviceIntId: other.id, deviceId: "n1", payload: "x", qos: 1 }),
    ).rejects.toMatchObject({ code: "FORM_INVALID" });
    await expect(router.publish(caller, { deviceId: "nobody", payload: "x", qos: 1 })).rejects.toMatchObject({
      code: "DATA_NOT_FOUND",
    });
  });

  it("refuses a command for another tenant's device and records nothing", async () => {
    const { db, other, router, device } = await routerSetup(engine);
    const d = await device("v8");
    await expect(router.publish(other, { deviceIntId: d.id, payload: "x", qos: 1 })).rejects.toMatchObject({
      code: "DATA_NOT_FOUND",
    });
    expect(await db.selectFrom("controlLogs").select("id").where("deviceIntId", "=", d.id).execute()).toEqual([]);
  });
});
