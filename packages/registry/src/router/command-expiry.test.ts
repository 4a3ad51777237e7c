import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { PUBLISH_STATUS } from "./publish-status.js";
import { routerSetup, TTL } from "./test-command-router.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("commands past their TTL on $name", (engine) => {
  it("fails a command whose TTL ran out while the device was away, and never sends it later", async () => {
    const { caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("v5");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "late", qos: 1 }, 1_000);
    expect(await router.expire(1_000 + TTL - 1)).toBe(0);
    expect(await router.expire(1_000 + TTL)).toBe(1);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.failed);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 1_000 + TTL + 5)).toBe(0);
    expect(adapter.sent).toEqual([]);
  });

  it("does not deliver a queued command that expired before the session opened, even before the sweep marked it", async () => {
    const { caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("v6");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "stale", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 1_000 + TTL)).toBe(0);
    expect(adapter.sent).toEqual([]);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.issued);
  });

  it("lets an adapter answer a command it holds past its TTL, within the in-flight grace", async () => {
    const { caller, sessions, router, device, statusOf } = await routerSetup(engine);
    const d = await device("v7");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "slow", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    const handedOver = 1_000 + TTL - 100;
    expect(await router.deliverPending([d.id], handedOver)).toBe(1);
    expect(await router.expire(1_000 + TTL)).toBe(0); // the adapter may still report within the 10 s grace
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.issued);
    expect(await router.expire(handedOver + 10_000)).toBe(1);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.failed);
  });
});
