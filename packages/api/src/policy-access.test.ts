import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { policiesFixture, type PoliciesFixture } from "./policies-fixture.js";

describe.each(["1", "2"] as const)("policies in Form %s", (form) => {
  let { t, token, eveToken, admin, PUB, newPolicy, newDevice } = {} as PoliciesFixture;

  beforeAll(async () => {
    ({ t, token, eveToken, admin, PUB, newPolicy, newDevice } = await policiesFixture(form));
  });
  afterAll(() => t.close());

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

  it("deletes nothing when a delete names another tenant's policy", async () => {
    const p = await newPolicy("not eve's");
    expect((await t.call("DELETE", `/policies?ids=${p.id}`, undefined, eveToken)).status).toBe(204);
    expect((await t.call("GET", `/policies/${p.id}`, undefined, token)).status).toBe(200);
  });

  it("lets a viewer read policies and bindings but not write them", async () => {
    const p = await newPolicy("viewed");
    const d = await newDevice("viewed-device");
    const viewer = await t.addUser(admin.tenantId, `viewer${form}`, "viewer");
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
