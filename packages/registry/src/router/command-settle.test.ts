import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { readEvents } from "../northbound/events.js";
import { PUBLISH_STATUS } from "./publish-status.js";
import { routerSetup, TTL } from "./test-command-router.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("adapters' reports on commands on $name", (engine) => {
  it("changes only an issued command when an adapter reports on it", async () => {
    const { caller, router, device, statusOf } = await routerSetup(engine);
    const d = await device("v4");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "x", qos: 0 });
    await router.settle(r.id, PUBLISH_STATUS.sent);
    await router.settle(r.id, PUBLISH_STATUS.failed);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.sent);
  });

  it("reports each settled or expired command once as a command_result event of its tenant and device", async () => {
    const { db, caller, router, device } = await routerSetup(engine);
    const d = await device("v4e");
    const sent = await router.publish(caller, { deviceIntId: d.id, payload: "x", qos: 0 }, 1_000);
    const late = await router.publish(caller, { deviceIntId: d.id, payload: "y", qos: 1 }, 1_000);
    await router.settle(sent.id, PUBLISH_STATUS.sent, "ok");
    await router.settle(sent.id, PUBLISH_STATUS.failed);
    await router.expire(1_000 + TTL);
    const events = await readEvents(db, { afterId: 0, limit: 10, types: ["command_result"] });
    expect(events.map((e) => [e.tenantID, e.deviceID, e.data.controlLogID, e.data.status])).toEqual([
      [caller.tenantId, "v4e", sent.id, "sent"],
      [caller.tenantId, "v4e", late.id, "failed"],
    ]);
    expect(events[0]!.data.result).toBe("ok");
  });
});
