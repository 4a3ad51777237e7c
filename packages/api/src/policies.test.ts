import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addGroupDevices, createDevice, createGateway, createGroup, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

describe.each(["1", "2"] as const)("policies in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let admin: Caller;
  let eve: Caller;
  let productID: string;
  let eveProductID: string;
  /** Form codes of publish, subscribe and both in this form. */
  const [PUB, SUB, BOTH] = form === "1" ? [1, 2, 3] : [0, 1, 2];

  const addUser = (tenantId: string, username: string, role: string) => t.addUser(tenantId, username, role);
  const newPolicy = async (name: string, extra: Record<string, unknown> = {}, as = token) => {
    const r = await t.call("POST", "/policies", { name, topic: "data/#", access: BOTH, allow: 1, ...extra }, as);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as { id: number; name: string };
  };
  const newDevice = async (deviceName: string, productId = productID, who = admin) =>
    (await createDevice(t.store.db, who, { productId, deviceName, upLinkSystem: 1, authType: 1 })) as {
      id: number;
      deviceId: string;
    };
  const idsOf = (body: { items: Array<{ id: number }> }) => body.items.map((x) => x.id);

  beforeAll(async () => {
    t = await testApp(form);
    token = await t.login();
    const root = await t.store.db.selectFrom("users").selectAll().where("id", "=", 1).executeTakeFirstOrThrow();
    admin = { userIntId: root.id, username: root.username, tenantId: root.tenantId, role: "admin", serviceAdmin: true };
    await t.addTenant("tenant2");
    ({ token: eveToken, caller: eve } = await addUser("tenant2", "eve", "admin"));
    productID = (await t.call("POST", "/products", { productName: "Meter", cloudProtocol: 1, description: "p" }, token))
      .body.productID;
    eveProductID = (
      await t.call("POST", "/products", { productName: "Eve's", cloudProtocol: 1, description: "p" }, eveToken)
    ).body.productID;
  });
  afterAll(() => t.close());

  it("creates a policy with 201, answering the form's access code and storing Form 1 codes", async () => {
    const r = await t.call(
      "POST",
      "/policies",
      { name: "Subscribers", topic: "cmd/+/set", access: SUB, allow: "1", description: "d" },
      token,
    );
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual([
      "access",
      "allow",
      "createAt",
      "description",
      "id",
      "name",
      "topic",
      "updateAt",
      "userIntID",
    ]);
    expect(r.body).toMatchObject({
      name: "Subscribers",
      topic: "cmd/+/set",
      access: SUB,
      allow: 1,
      description: "d",
      userIntID: 1,
      updateAt: null,
    });
    expect(r.body.createAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const row = await t.store.db
      .selectFrom("policies")
      .select(["access", "allow"])
      .where("id", "=", r.body.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ access: 2, allow: 1 });
    for (const [code, stored] of [
      [PUB, 1],
      [BOTH, 3],
    ] as const) {
      const p = await newPolicy(`code ${code}`, { access: code });
      expect(
        (await t.store.db.selectFrom("policies").select("access").where("id", "=", p.id).executeTakeFirstOrThrow())
          .access,
      ).toBe(stored);
    }
  });

  it("refuses a create body with FORM_INVALID naming each missing or bad field", async () => {
    const empty = await t.call("POST", "/policies", {}, token);
    expect(empty.status).toBe(400);
    expect(empty.body.errorCode).toBe("FORM_INVALID");
    expect(Object.keys(empty.body.errors).sort()).toEqual(["access", "allow", "name", "topic"]);
    const outOfForm = form === "1" ? 0 : 3;
    const bad = await t.call("POST", "/policies", { name: "x", topic: "a", access: outOfForm, allow: 2 }, token);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["access", "allow"]);
    expect(bad.body.errors.access).toBe(form === "1" ? "must be one of 1, 2, 3" : "must be one of 0, 1, 2");
  });

  it("refuses topics that are not MQTT filters relative to the device with FORM_INVALID naming topic", async () => {
    for (const topic of ["", "a+/b", "a/#/b", "a#", "$SYS/#", "a\u0000b", "x".repeat(1025), 5]) {
      const r = await t.call("POST", "/policies", { name: "x", topic, access: PUB, allow: 1 }, token);
      expect(r.status, JSON.stringify(topic)).toBe(400);
      expect(r.body.errors, JSON.stringify(topic)).toEqual({ topic: expect.any(String) });
    }
    for (const topic of ["+/+/#", "#", "a/+", "x".repeat(1024)])
      expect(
        (await t.call("POST", "/policies", { name: "ok", topic, access: PUB, allow: 0 }, token)).status,
        topic,
      ).toBe(201);
  });

  it("lists policies newest first with labels and mqtt_acl, filtered by name_like and paged", async () => {
    const a = await newPolicy("Listed 100%", { access: PUB, allow: 0 });
    const b = await newPolicy("listed two");
    const d = await newDevice("acl-member");
    await t.call("POST", `/policies/${b.id}/devices`, { devicesIntID: [d.id] }, token);
    await newPolicy("Listed by eve", {}, eveToken);
    const r = await t.call("GET", "/policies?name_like=LISTED&_limit=1&_page=2", undefined, token);
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ count: 2, limit: 1, page: 2 });
    expect(r.body.items).toEqual([
      {
        id: a.id,
        name: "Listed 100%",
        topic: "data/#",
        access: PUB,
        accessLabel: "Publish",
        allow: 0,
        allowLabel: "Deny",
        description: null,
        mqtt_acl: [],
        userIntID: 1,
        createAt: expect.any(String),
        updateAt: null,
      },
    ]);
    const first = (await t.call("GET", "/policies?name_like=listed", undefined, token)).body.items[0];
    expect(first).toMatchObject({
      id: b.id,
      access: BOTH,
      accessLabel: "Publish and subscribe",
      allowLabel: "Allow",
      mqtt_acl: [{ id: d.id }],
    });
    expect(idsOf((await t.call("GET", "/policies?name_like=100%25", undefined, token)).body)).toEqual([a.id]);
    expect((await t.call("GET", "/policies?_page=x", undefined, token)).body).toMatchObject({
      errorCode: "PARAMETER_INVALID",
      errors: { _page: expect.any(String) },
    });
  });

  it("shows a policy's detail with createUser and labels in the caller's language", async () => {
    const p = await newPolicy("Detailed", { access: SUB, allow: 1, description: "x" });
    const r = await t.call("GET", `/policies/${p.id}`, undefined, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: p.id,
      name: "Detailed",
      topic: "data/#",
      access: SUB,
      accessLabel: "Subscribe",
      allow: 1,
      allowLabel: "Allow",
      description: "x",
      mqtt_acl: [],
      userIntID: 1,
      createUser: "admin",
      createAt: expect.any(String),
      updateAt: null,
    });
    const zh = await t.call("GET", `/policies/${p.id}`, undefined, token, { "accept-language": "zh-CN" });
    expect(zh.body).toMatchObject({ accessLabel: "订阅", allowLabel: "允许" });
  });

  it("edits from the whole record, dropping read-only members and mapping the form's access code", async () => {
    const p = await newPolicy("Before", { access: PUB });
    const record = (await t.call("GET", `/policies/${p.id}`, undefined, token)).body;
    const sent = {
      ...record,
      id: 424242,
      userIntID: 7,
      createUser: "eve",
      createAt: "2000-01-01 00:00:00",
      accessLabel: "x",
      mqtt_acl: [{ id: 1 }],
      name: "After",
      topic: "up/+",
      access: SUB,
      allow: 0,
    };
    const r = await t.call("PUT", `/policies/${p.id}`, sent, token);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: p.id,
      name: "After",
      topic: "up/+",
      access: SUB,
      allow: 0,
      description: null,
      userIntID: 1,
      createAt: record.createAt,
      updateAt: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
    expect(
      (await t.store.db.selectFrom("policies").select("access").where("id", "=", p.id).executeTakeFirstOrThrow())
        .access,
    ).toBe(2);
    const bad = await t.call("PUT", `/policies/${p.id}`, { topic: "a/#/b", access: 9 }, token);
    expect(bad.body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { topic: expect.any(String), access: expect.any(String) },
    });
  });

  it("answers 404 for another tenant's or an unknown policy or device on every path that names one", async () => {
    const p = await newPolicy("Private");
    const d = await newDevice("private-device");
    const calls: Array<[string, string, string, unknown?]> = [
      ["policy", "GET", `/policies/${p.id}`],
      ["policy", "PUT", `/policies/${p.id}`, { name: "stolen" }],
      ["policy", "GET", `/policies/${p.id}/devices`],
      ["policy", "POST", `/policies/${p.id}/devices`, { devicesIntID: [] }],
      ["policy", "DELETE", `/policies/${p.id}/devices?ids=${d.id}`],
      ["policy", "GET", `/broker_select/policies/${p.id}/not_joined_devices`],
      ["device", "GET", `/devices/${d.id}/policies`],
      ["device", "POST", `/devices/${d.id}/policies`, { ids: [p.id] }],
      ["device", "DELETE", `/devices/${d.id}/policies?ids=${p.id}`],
      ["device", "GET", `/broker_select/devices/${d.id}/not_joined_policies`],
    ];
    for (const [what, method, path, body] of calls) {
      const r = await t.call(method, path, body, eveToken);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toMatchObject({ errorCode: "DATA_NOT_FOUND", errors: { [what]: "not found" } });
    }
    expect((await t.call("GET", "/policies/999999", undefined, token)).status).toBe(404);
    expect((await t.call("GET", "/policies/abc", undefined, token)).status).toBe(404);
    expect((await t.call("GET", `/policies/${p.id}`, undefined, token)).body.name).toBe("Private");
  });

  it("binds policies to a device with 201, answering the device's policies with meta, skipping existing bindings", async () => {
    const [p1, p2, p3] = [await newPolicy("dev-p1"), await newPolicy("dev-p2"), await newPolicy("dev-p3")];
    const d = await newDevice("bound-device");
    const r = await t.call("POST", `/devices/${d.id}/policies`, { ids: [p1.id] }, token);
    expect(r.status).toBe(201);
    expect(r.body.meta).toEqual({ count: 1, limit: 10, page: 1 });
    expect(r.body.items[0]).toMatchObject({
      id: p1.id,
      name: "dev-p1",
      access: BOTH,
      accessLabel: "Publish and subscribe",
      mqtt_acl: [{ id: d.id }],
    });
    const again = await t.call("POST", `/devices/${d.id}/policies`, { ids: [p1.id, String(p2.id)] }, token);
    expect(idsOf(again.body)).toEqual([p2.id, p1.id]);
    const paged = await t.call("GET", `/devices/${d.id}/policies?_page=2&_limit=1`, undefined, token);
    expect(paged.status).toBe(200);
    expect(paged.body).toMatchObject({ meta: { count: 2, limit: 1, page: 2 }, items: [{ id: p1.id }] });
    const offered = await t.call(
      "GET",
      `/broker_select/devices/${d.id}/not_joined_policies?_limit=1000`,
      undefined,
      token,
    );
    expect(offered.status).toBe(200);
    expect(idsOf(offered.body)).toContain(p3.id);
    expect(idsOf(offered.body)).not.toContain(p1.id);
    expect(offered.body.meta).toMatchObject({ limit: 1000, page: 1 });
    const removed = await t.call("DELETE", `/devices/${d.id}/policies?ids=${p1.id}`, undefined, token);
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    expect(idsOf((await t.call("GET", `/devices/${d.id}/policies`, undefined, token)).body)).toEqual([p2.id]);
    expect(
      idsOf(
        (await t.call("GET", `/broker_select/devices/${d.id}/not_joined_policies?_limit=1000`, undefined, token)).body,
      ),
    ).toContain(p1.id);
  });

  it("refuses another tenant's or unknown policy ids on a device with FORM_INVALID naming ids, binding none", async () => {
    const mine = await newPolicy("strict-mine");
    const eves = await newPolicy("strict-eve", {}, eveToken);
    const d = await newDevice("strict-device");
    for (const ids of [[mine.id, eves.id], [mine.id, 999999], [], ["x"]]) {
      const r = await t.call("POST", `/devices/${d.id}/policies`, { ids }, token);
      expect(r.status, JSON.stringify(ids)).toBe(400);
      expect(r.body.errorCode).toBe("FORM_INVALID");
      expect(Object.keys(r.body.errors)[0]).toMatch(/^ids/);
    }
    expect((await t.call("GET", `/devices/${d.id}/policies`, undefined, token)).body.meta.count).toBe(0);
  });

  it("binds devices to a policy with 201 and lists them as {deviceID, deviceName, deviceTypeLabel, id}", async () => {
    const p = await newPolicy("policy-side");
    const d = await newDevice("ps-device");
    const gw = await createGateway(t.store.db, admin, { productId: productID, deviceName: "ps-gateway", authType: 1 });
    const r = await t.call("POST", `/policies/${p.id}/devices`, { devicesIntID: [d.id, String(gw.id)] }, token);
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      items: [
        { id: gw.id, deviceID: gw.deviceId, deviceName: "ps-gateway", deviceTypeLabel: "Gateway" },
        { id: d.id, deviceID: d.deviceId, deviceName: "ps-device", deviceTypeLabel: "Terminal" },
      ],
      meta: { count: 2, limit: 10, page: 1 },
    });
    expect((await t.call("POST", `/policies/${p.id}/devices`, {}, token)).status).toBe(201);
    const paged = await t.call("GET", `/policies/${p.id}/devices?_limit=1&_page=2`, undefined, token);
    expect(paged.body).toMatchObject({ meta: { count: 2, limit: 1, page: 2 }, items: [{ id: d.id }] });
    const zh = await t.call("GET", `/policies/${p.id}/devices`, undefined, token, { "accept-language": "zh" });
    expect(zh.body.items.map((x: { deviceTypeLabel: string }) => x.deviceTypeLabel)).toEqual(["网关", "终端"]);
    expect((await t.call("DELETE", `/policies/${p.id}/devices?ids=${gw.id}`, undefined, token)).status).toBe(204);
    expect(idsOf((await t.call("GET", `/policies/${p.id}/devices`, undefined, token)).body)).toEqual([d.id]);
    expect(
      (await t.call("GET", `/devices/${d.id}/policies`, undefined, token)).body.items.map((x: { id: number }) => x.id),
    ).toEqual([p.id]);
  });

  it("pushes a live device's new rules to its adapter on every bind, unbind and edit, and nothing to offline devices", async () => {
    const p = await newPolicy("live-policy", { topic: "secret/#", allow: 0 });
    const online = await newDevice("live-device");
    const offline = await newDevice("offline-device");
    const live = t.attachDevice(online.id, admin.tenantId);
    try {
      const rule = (allow: boolean, topic = "secret/#") => [online.id, [{ id: p.id, topic, access: 3, allow }]];
      await t.call("POST", `/policies/${p.id}/devices`, { devicesIntID: [online.id, offline.id] }, token);
      expect(live.sent.policies).toEqual([rule(false)]);
      await t.call("PUT", `/policies/${p.id}`, { topic: "private/#" }, token);
      expect(live.sent.policies.at(-1)).toEqual(rule(false, "private/#"));
      await t.call("DELETE", `/policies/${p.id}/devices?ids=${online.id}`, undefined, token);
      expect(live.sent.policies.at(-1)).toEqual([online.id, []]);
      await t.call("POST", `/devices/${online.id}/policies`, { ids: [p.id] }, token);
      expect(live.sent.policies.at(-1)).toEqual(rule(false, "private/#"));
      await t.call("DELETE", `/devices/${online.id}/policies?ids=${p.id}`, undefined, token);
      expect(live.sent.policies.at(-1)).toEqual([online.id, []]);
      expect(live.sent.policies).toHaveLength(5);
      expect(live.sent.policies.every(([id]) => id === online.id)).toBe(true);
    } finally {
      live.detach();
    }
  });

  it("refuses another tenant's or unknown devices on a policy with FORM_INVALID naming devicesIntID, binding none", async () => {
    const p = await newPolicy("strict-policy");
    const ok = await newDevice("sp-ok");
    const eves = await newDevice("sp-eve", eveProductID, eve);
    for (const devicesIntID of [[ok.id, eves.id], [ok.id, 999999], "x", ["x"]]) {
      const r = await t.call("POST", `/policies/${p.id}/devices`, { devicesIntID }, token);
      expect(r.status, JSON.stringify(devicesIntID)).toBe(400);
      expect(r.body.errorCode).toBe("FORM_INVALID");
      expect(Object.keys(r.body.errors)[0]).toMatch(/^devicesIntID/);
    }
    expect((await t.call("GET", `/policies/${p.id}/devices`, undefined, token)).body.meta.count).toBe(0);
  });

  it("offers the tenant's unbound devices as {deviceName, id, productName}, filtered by device, group and product name", async () => {
    const p = await newPolicy("offering");
    const valveID = (
      await t.call("POST", "/products", { productName: "Valve_x", cloudProtocol: 1, description: "v" }, token)
    ).body.productID;
    const [n1, n2, v1] = [
      await newDevice("nj-meter-1"),
      await newDevice("nj-meter-2"),
      await newDevice("nj-valve-1", valveID),
    ];
    await newDevice("nj-meter-eve", eveProductID, eve);
    const g = await createGroup(t.store.db, admin, { productId: productID, groupName: "NJ wing" });
    await addGroupDevices(t.store.db, admin, g.id, [n2.id]);
    await t.call("POST", `/policies/${p.id}/devices`, { devicesIntID: [n1.id] }, token);
    const byName = await t.call(
      "GET",
      `/broker_select/policies/${p.id}/not_joined_devices?deviceName_like=NJ-`,
      undefined,
      token,
    );
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual({
      items: [
        { id: v1.id, deviceName: "nj-valve-1", productName: "Valve_x" },
        { id: n2.id, deviceName: "nj-meter-2", productName: "Meter" },
      ],
      meta: { count: 2, limit: 10, page: 1 },
    });
    expect(
      idsOf(
        (
          await t.call(
            "GET",
            `/broker_select/policies/${p.id}/not_joined_devices?productName_like=e_x`,
            undefined,
            token,
          )
        ).body,
      ),
    ).toEqual([v1.id]);
    expect(
      idsOf(
        (
          await t.call(
            "GET",
            `/broker_select/policies/${p.id}/not_joined_devices?groupName_like=nj%20WING`,
            undefined,
            token,
          )
        ).body,
      ),
    ).toEqual([n2.id]);
    const paged = await t.call(
      "GET",
      `/broker_select/policies/${p.id}/not_joined_devices?deviceName_like=nj-&_limit=1&_page=2`,
      undefined,
      token,
    );
    expect(paged.body).toMatchObject({ meta: { count: 2, limit: 1, page: 2 }, items: [{ id: n2.id }] });
    expect(
      (await t.call("GET", `/broker_select/policies/${p.id}/not_joined_devices?_limit=-1`, undefined, token)).body
        .errorCode,
    ).toBe("PARAMETER_INVALID");
  });

  it("refuses to delete a policy bound to devices with REFERENCED_ERROR naming device, and deletes it once unbound", async () => {
    const p = await newPolicy("busy");
    const d = await newDevice("busy-device");
    await t.call("POST", `/devices/${d.id}/policies`, { ids: [p.id] }, token);
    const refused = await t.call("DELETE", `/policies?ids=${p.id}`, undefined, token);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      errorCode: "REFERENCED_ERROR",
      message: "Referenced error",
      errors: { device: expect.any(String) },
    });
    await t.call("DELETE", `/policies/${p.id}/devices?ids=${d.id}`, undefined, token);
    const deleted = await t.call("DELETE", `/policies?ids=${p.id},999999`, undefined, token);
    expect(deleted.status).toBe(204);
    expect((await t.call("GET", `/policies/${p.id}`, undefined, token)).status).toBe(404);
    expect((await t.call("DELETE", "/policies?ids=a", undefined, token)).body.errorCode).toBe("PARAMETER_INVALID");
  });

  it("deletes nothing when a delete names another tenant's policy", async () => {
    const p = await newPolicy("not eve's");
    expect((await t.call("DELETE", `/policies?ids=${p.id}`, undefined, eveToken)).status).toBe(204);
    expect((await t.call("GET", `/policies/${p.id}`, undefined, token)).status).toBe(200);
  });

  it("lets a viewer read policies and bindings but not write them", async () => {
    const p = await newPolicy("viewed");
    const d = await newDevice("viewed-device");
    const viewer = await addUser(admin.tenantId, `viewer${form}`, "viewer");
    for (const path of [
      `/policies/${p.id}`,
      "/policies",
      `/policies/${p.id}/devices`,
      `/devices/${d.id}/policies`,
      `/broker_select/devices/${d.id}/not_joined_policies`,
      `/broker_select/policies/${p.id}/not_joined_devices`,
    ]) {
      expect((await t.call("GET", path, undefined, viewer.token)).status, path).toBe(200);
    }
    const writes: Array<[string, string, unknown?]> = [
      ["POST", "/policies", { name: "v", topic: "a", access: PUB, allow: 1 }],
      ["PUT", `/policies/${p.id}`, { name: "v" }],
      ["DELETE", `/policies?ids=${p.id}`],
      ["POST", `/policies/${p.id}/devices`, { devicesIntID: [d.id] }],
      ["DELETE", `/policies/${p.id}/devices?ids=${d.id}`],
      ["POST", `/devices/${d.id}/policies`, { ids: [p.id] }],
      ["DELETE", `/devices/${d.id}/policies?ids=${p.id}`],
    ];
    for (const [method, path, body] of writes) {
      const r = await t.call(method, path, body, viewer.token);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.errorCode).toBe("PERMISSION_DENIED");
    }
    expect((await t.call("GET", `/policies/${p.id}/devices`, undefined, token)).body.meta.count).toBe(0);
  });
});
