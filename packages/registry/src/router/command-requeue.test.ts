import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { readEvents } from "../northbound/events.js";
import { PUBLISH_STATUS } from "./publish-status.js";
import { routerSetup, TTL } from "./test-command-router.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("commands given back undelivered on $name", (engine) => {
  it("keeps a command its adapter gave back undelivered issued, with no result event, and sends it at the next session", async () => {
    const { db, caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("q1");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "later", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    // The device left before it subscribed to the command's topic: its session closes, the adapter gives it back.
    sessions.close("mqtt-1", adapter.sessionIds.at(-1)!);
    await router.settle(r.id, PUBLISH_STATUS.issued, "device disconnected before it subscribed", 3_000);
    await router.settle(r.id, PUBLISH_STATUS.delivered, "", 3_000); // a report that crossed it still settles it
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.delivered);
    const q = await router.publish(caller, { deviceIntId: d.id, payload: "again", qos: 1 }, 4_000);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 5_000)).toBe(1);
    sessions.close("mqtt-1", adapter.sessionIds.at(-1)!);
    await router.settle(q.id, PUBLISH_STATUS.issued, "device disconnected before it subscribed", 6_000);
    expect(await statusOf(q.id)).toBe(PUBLISH_STATUS.issued);
    // Back on the same adapter stream: sent again, as it is no longer with the adapter.
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 7_000)).toBe(1);
    expect(adapter.sent.map((c) => c.id)).toEqual([r.id, q.id, q.id]);
    await router.stop();
    const events = await readEvents(db, { afterId: 0, limit: 10, types: ["command_result"] });
    expect(events.map((e) => [e.data.controlLogID, e.data.status])).toEqual([[r.id, "delivered"]]);
  });

  it("sends a command given back undelivered at once to the device's session that replaced the one it went to", async () => {
    const { caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("q2");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "takeover", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    // A new connection of the device took over before the adapter gave the command back from the old one.
    sessions.close("mqtt-1", adapter.sessionIds.at(-1)!);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_500)).toBe(0); // still with the adapter
    await router.settle(r.id, PUBLISH_STATUS.issued, "device disconnected before it subscribed", 3_000);
    expect(adapter.sent.map((c) => c.id)).toEqual([r.id, r.id]);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.issued);
  });

  it("sends a command given back unacknowledged with the packet identifier it went out with", async () => {
    const { caller, sessions, router, device } = await routerSetup(engine);
    const d = await device("q4");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "dup", qos: 2 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    expect(adapter.sent[0]!.resumePacketId).toBeUndefined();
    sessions.close("mqtt-1", adapter.sessionIds.at(-1)!);
    const resume = { packetId: 17, released: true };
    await router.settle(r.id, PUBLISH_STATUS.issued, "device disconnected before its PUBCOMP", 3_000, { resume });
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 4_000)).toBe(1);
    expect(adapter.sent.map((c) => [c.id, c.resumePacketId, c.resumeReleased])).toEqual([
      [r.id, undefined, undefined],
      [r.id, 17, true],
    ]);
  });

  it("lets the sweep fail a command given back undelivered once its TTL ran out, and never sends it again", async () => {
    const { caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("q3");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "too late", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    await router.settle(r.id, PUBLISH_STATUS.issued, 'expired before the device subscribed to "inbox"', 1_000 + TTL);
    expect(adapter.sent).toHaveLength(1);
    expect(await router.expire(1_000 + TTL)).toBe(1);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.failed);
  });
});
