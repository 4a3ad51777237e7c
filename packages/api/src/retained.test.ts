import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevice, writeRetained, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

describe.each(["1", "2"] as const)("retained messages in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let viewerToken: string;
  let admin: Caller;
  let productID: string;
  let n = 0;

  const newDevice = async () =>
    createDevice(t.store.db, admin, { productId: productID, deviceName: `ret-${n++}`, upLinkSystem: 1, authType: 1 });
  const retainedOf = (id: number, query = "", as = token) =>
    t.call("GET", `/devices/${id}/retained${query}`, undefined, as);

  beforeAll(async () => {
    t = await testApp(form);
    const login = (await t.call("POST", "/login", { username: "admin", password: "admin-pass-1" })).body;
    token = login.token;
    admin = {
      userIntId: login.userIntID,
      username: "admin",
      tenantId: login.tenantID,
      role: "admin",
      serviceAdmin: true,
    };
    await t.addTenant("tenant2");
    ({ token: eveToken } = await t.addUser("tenant2", "eve", "admin"));
    ({ token: viewerToken } = await t.addUser(admin.tenantId, "viewer", "viewer"));
    productID = (await t.call("POST", "/products", { productName: "Lamp", cloudProtocol: 1, description: "p" }, token))
      .body.productID;
  });
  afterAll(() => t.close());

  it("keeps a retained device_publish as the device's desired state, replaces it, and clears it with an empty payload", async () => {
    const d = await newDevice();
    const live = t.attachDevice(d.id, admin.tenantId);
    const publish = (payload: string) =>
      t.call("POST", "/device_publish", { deviceID: d.deviceId, payload, topic: "cfg/led", retain: 1 }, token);
    const first = await publish("on");
    expect(first.status).toBe(201);
    expect((await publish("off")).status).toBe(201);
    const r = await retainedOf(d.id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      items: [
        {
          direction: "command",
          topic: "cfg/led",
          payload: "off",
          qos: "1",
          properties: null,
          controlLogIntID: first.body.controlLogIntID + 1,
          updateAt: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        },
      ],
      meta: { count: 1, limit: 10, page: 1 },
    });
    // Each change went to the device's live session: the set after it, one message per topic.
    expect(
      live.sent.retained.map(([id, list]) => [id, (list as Array<{ topic: string }>).map((m) => m.topic)]),
    ).toEqual([
      [d.id, ["cfg/led"]],
      [d.id, ["cfg/led"]],
    ]);
    expect((await publish("")).status).toBe(201);
    expect((await retainedOf(d.id)).body.meta.count).toBe(0);
    expect(live.sent.retained.at(-1)).toEqual([d.id, []]);
  });

  it("leaves a command without retain out of the retained messages", async () => {
    const d = await newDevice();
    await t.call("POST", "/device_publish", { deviceID: d.deviceId, payload: "x", topic: "cfg/led" }, token);
    expect((await retainedOf(d.id)).body.meta.count).toBe(0);
  });

  it("keeps a retained group_publish as every member's desired state", async () => {
    const group = (await t.call("POST", "/groups", { productID, groupName: "g", description: "d" }, token)).body;
    const a = await newDevice();
    const b = await newDevice();
    await t.call("POST", `/groups/${group.id}/devices`, { ids: [a.id, b.id] }, token);
    const r = await t.call("POST", "/group_publish", { groupID: group.groupID, payload: "dim", retain: 1 }, token);
    expect(r.status).toBe(201);
    for (const d of [a, b])
      expect((await retainedOf(d.id)).body.items).toMatchObject([
        { direction: "command", topic: "inbox", payload: "dim" },
      ]);
  });

  it("lists by direction and topic filter and clears one topic with 204, then 404 naming topic", async () => {
    const d = await newDevice();
    const write = (direction: "command" | "uplink", topic: string, payload: string, at: number) =>
      writeRetained(
        t.store.db,
        { tenantId: admin.tenantId, deviceIntId: d.id, direction, topic, payload: Buffer.from(payload), qos: 0 },
        at,
      );
    await write("uplink", "state/t", "21.5", 1_000);
    await write("uplink", "state/h", "40", 2_000);
    await write("command", "cfg", "x", 3_000);
    expect((await retainedOf(d.id, "?direction=uplink")).body.items.map((m: { topic: string }) => m.topic)).toEqual([
      "state/h",
      "state/t",
    ]);
    expect((await retainedOf(d.id, "?topic=state/%2B&_limit=1")).body).toMatchObject({
      items: [{ topic: "state/h", payload: "40" }],
      meta: { count: 2, limit: 1 },
    });
    expect((await t.call("DELETE", `/devices/${d.id}/retained?topic=state/t`, undefined, token)).status).toBe(204);
    const again = await t.call("DELETE", `/devices/${d.id}/retained?topic=state/t`, undefined, token);
    expect(again.status).toBe(404);
    expect(again.body.errors).toEqual({ topic: "not found" });
    expect((await retainedOf(d.id)).body.meta.count).toBe(2);
  });

  it("answers 400 naming the field for a bad direction, topic filter or retain flag", async () => {
    const d = await newDevice();
    const bad = [
      await retainedOf(d.id, "?direction=sideways"),
      await retainedOf(d.id, "?topic=a/%23/b"),
      await t.call("DELETE", `/devices/${d.id}/retained?topic=a/%2B`, undefined, token),
      await t.call("DELETE", `/devices/${d.id}/retained`, undefined, token),
      await t.call("POST", "/device_publish", { deviceID: d.deviceId, payload: "x", retain: 2 }, token),
    ];
    expect(bad.map((r) => [r.status, Object.keys(r.body.errors ?? {})])).toEqual([
      [400, ["direction"]],
      [400, ["topic"]],
      [400, ["topic"]],
      [400, ["topic"]],
      [400, ["retain"]],
    ]);
  });

  it("answers another tenant's device with 404 and lets a viewer list but not clear", async () => {
    const d = await newDevice();
    await writeRetained(t.store.db, {
      tenantId: admin.tenantId,
      deviceIntId: d.id,
      direction: "command",
      topic: "t",
      payload: Buffer.from("x"),
      qos: 1,
    });
    expect((await retainedOf(d.id, "", eveToken)).status).toBe(404);
    expect((await t.call("DELETE", `/devices/${d.id}/retained?topic=t`, undefined, eveToken)).status).toBe(404);
    expect((await retainedOf(d.id, "", viewerToken)).body.meta.count).toBe(1);
    expect((await t.call("DELETE", `/devices/${d.id}/retained?topic=t`, undefined, viewerToken)).status).toBe(403);
    expect((await retainedOf(d.id)).body.meta.count).toBe(1);
  });
});
