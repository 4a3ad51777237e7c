import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addGroupDevices, createGateway, createGroup } from "@iot/registry";
import { idsOf, policiesFixture, type PoliciesFixture } from "./policies-fixture.js";

describe.each(["1", "2"] as const)("policies in Form %s", (form) => {
  let { t, token, eveToken, admin, eve, productID, eveProductID, BOTH, newPolicy, newDevice } = {} as PoliciesFixture;

  beforeAll(async () => {
    ({ t, token, eveToken, admin, eve, productID, eveProductID, BOTH, newPolicy, newDevice } =
      await policiesFixture(form));
  });
  afterAll(() => t.close());

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
});
