import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevice, hashPassword, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

describe.each(["1", "2"] as const)("proxy subscriptions in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let admin: Caller;
  let productID: string;
  let n = 0;

  const newDevice = async () =>
    (
      await createDevice(t.store.db, admin, {
        productId: productID,
        deviceName: `sub-${n++}`,
        upLinkSystem: 1,
        authType: 1,
      })
    ).id;
  const subscribe = (device: number, body: unknown, as = token) =>
    t.call("POST", `/devices/${device}/subscriptions`, body, as);

  beforeAll(async () => {
    t = await testApp(form);
    token = await t.login();
    const root = await t.store.db.selectFrom("users").selectAll().where("id", "=", 1).executeTakeFirstOrThrow();
    admin = { userIntId: root.id, username: root.username, tenantId: root.tenantId, role: "admin", serviceAdmin: true };
    await t.store.db
      .insertInto("tenants")
      .values({ tenantId: "tenant2", tenantName: "T2", enable: 1, createAt: Date.now(), updateAt: null })
      .execute();
    for (const [tenantId, username, role] of [
      ["tenant2", "eve", "admin"],
      [admin.tenantId, "viewer", "viewer"],
    ]) {
      await t.store.db
        .insertInto("users")
        .values({
          tenantId: tenantId!,
          username: username!,
          email: null,
          passwordHash: await hashPassword(`${username}-pass`),
          role: role!,
          serviceAdmin: 0,
          enable: 1,
          createAt: Date.now(),
          updateAt: null,
        })
        .execute();
    }
    eveToken = await t.login("eve", "eve-pass");
    productID = (await t.call("POST", "/products", { productName: "Meter", cloudProtocol: 1, description: "p" }, token))
      .body.productID;
  });
  afterAll(() => t.close());

  it("subscribes a device with 201, answering {id, topic, qos as a string, createAt, updateAt} with QoS 1 by default", async () => {
    const d = await newDevice();
    const r = await subscribe(d, { topic: "cmd/+" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      topic: "cmd/+",
      qos: "1",
      createAt: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      updateAt: null,
    });
    expect((await subscribe(d, { topic: "cfg/#", qos: "0" })).body.qos).toBe("0");
    expect((await subscribe(d, { topic: "x", qos: 1 })).body.qos).toBe("1");
  });

  it("lists a device's subscriptions newest first with paging meta, and removes them with 204", async () => {
    const d = await newDevice();
    const a = (await subscribe(d, { topic: "a" })).body;
    const b = (await subscribe(d, { topic: "b", qos: 0 })).body;
    await subscribe(await newDevice(), { topic: "elsewhere" });
    const r = await t.call("GET", `/devices/${d}/subscriptions`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [b, a], meta: { count: 2, limit: 10, page: 1 } });
    expect((await t.call("GET", `/devices/${d}/subscriptions?_limit=1&_page=2`, undefined, token)).body).toEqual({
      items: [a],
      meta: { count: 2, limit: 1, page: 2 },
    });
    const removed = await t.call("DELETE", `/devices/${d}/subscriptions?ids=${a.id}`, undefined, token);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    expect((await t.call("GET", `/devices/${d}/subscriptions`, undefined, token)).body.items).toEqual([b]);
  });

  it("pushes a live device's whole subscription list to its adapter when one is added or removed", async () => {
    const d = await newDevice();
    const live = t.attachDevice(d, admin.tenantId);
    try {
      const a = (await subscribe(d, { topic: "cmd/+" })).body;
      expect(live.sent.subscriptions).toEqual([[d, [{ topic: "cmd/+", qos: 1 }]]]);
      await subscribe(d, { topic: "cfg/#", qos: 0 });
      expect(live.sent.subscriptions.at(-1)).toEqual([
        d,
        [
          { topic: "cmd/+", qos: 1 },
          { topic: "cfg/#", qos: 0 },
        ],
      ]);
      await t.call("DELETE", `/devices/${d}/subscriptions?ids=${a.id}`, undefined, token);
      expect(live.sent.subscriptions.at(-1)).toEqual([d, [{ topic: "cfg/#", qos: 0 }]]);
    } finally {
      live.detach();
    }
  });

  it("refuses the same topic twice on a device with DATA_EXISTED naming topic", async () => {
    const d = await newDevice();
    await subscribe(d, { topic: "dup/+" });
    const r = await subscribe(d, { topic: "dup/+", qos: 0 });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errorCode: "DATA_EXISTED", errors: { topic: expect.any(String) } });
    expect((await subscribe(await newDevice(), { topic: "dup/+" })).status).toBe(201);
  });

  it("refuses a missing or bad topic filter and a QoS other than 0 or 1 with FORM_INVALID naming each", async () => {
    const d = await newDevice();
    expect((await subscribe(d, {})).body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { topic: expect.any(String) },
    });
    for (const topic of ["", "a+", "a/#/b", "$SYS/x", "x".repeat(1025)]) {
      expect((await subscribe(d, { topic })).body.errors, topic).toEqual({ topic: expect.any(String) });
    }
    expect((await subscribe(d, { topic: "ok", qos: 2 })).body.errors).toEqual({ qos: expect.any(String) });
    expect((await subscribe(d, "not json")).body.errorCode).toBe("BAD_REQUEST");
    expect((await t.call("GET", `/devices/${d}/subscriptions`, undefined, token)).body.meta.count).toBe(0);
  });

  it("answers 404 for another tenant's or an unknown device, even before judging the body", async () => {
    const d = await newDevice();
    await subscribe(d, { topic: "private" });
    for (const [method, path, body] of [
      ["POST", `/devices/${d}/subscriptions`, { topic: "stolen" }],
      ["POST", `/devices/${d}/subscriptions`, { ids: [d] }],
      ["GET", `/devices/${d}/subscriptions`],
      ["DELETE", `/devices/${d}/subscriptions?ids=1`],
    ] as Array<[string, string, unknown?]>) {
      const r = await t.call(method, path, body, eveToken);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toMatchObject({ errorCode: "DATA_NOT_FOUND", errors: { device: "not found" } });
    }
    expect((await subscribe(999999, { topic: "x" })).status).toBe(404);
    expect((await t.call("GET", `/devices/${d}/subscriptions`, undefined, token)).body.meta.count).toBe(1);
  });

  it("lets a viewer read subscriptions but not add or remove them", async () => {
    const d = await newDevice();
    const s = (await subscribe(d, { topic: "v" })).body;
    const viewer = await t.login("viewer", "viewer-pass");
    expect((await t.call("GET", `/devices/${d}/subscriptions`, undefined, viewer)).status).toBe(200);
    expect((await subscribe(d, { topic: "w" }, viewer)).body.errorCode).toBe("PERMISSION_DENIED");
    expect((await t.call("DELETE", `/devices/${d}/subscriptions?ids=${s.id}`, undefined, viewer)).status).toBe(403);
    expect((await t.call("GET", `/devices/${d}/subscriptions`, undefined, token)).body.items).toEqual([s]);
  });
});
