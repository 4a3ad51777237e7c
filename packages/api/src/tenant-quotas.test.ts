import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taskEnded } from "./task-ended.js";
import { testApp } from "./test-app.js";

let t: Awaited<ReturnType<typeof testApp>>;
let admin: string;

beforeAll(async () => {
  t = await testApp();
  admin = await t.login();
});
afterAll(() => t.close());

/** Waits until a task has ended (status 3 or 4) and answers its last status record. */
const finished = (token: string, statusUrl: string) =>
  taskEnded(async () => (await t.call("GET", statusUrl, undefined, token)).body);

describe("tenant resource limits", () => {
  it("are set at creation, read back, edited one at a time, and null or 0 means unlimited", async () => {
    const created = await t.call("POST", "/tenants", { tenantName: "Q1", maxDevices: 5, maxUplinkRate: "20" }, admin);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ maxDevices: 5, maxConnections: 0, maxUplinkRate: 20 });
    const id = created.body.id as number;
    const edited = await t.call("PUT", `/tenants/${id}`, { maxConnections: 3, maxDevices: null }, admin);
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ tenantName: "Q1", maxDevices: 0, maxConnections: 3, maxUplinkRate: 20 });
    expect((await t.call("GET", `/tenants/${id}`, undefined, admin)).body).toEqual(edited.body);
    expect((await t.call("GET", "/tenants/999999", undefined, admin)).status).toBe(404);
  });

  it("answer 400 FORM_INVALID naming a limit that is negative, fractional or too large", async () => {
    const id = (await t.call("POST", "/tenants", { tenantName: "Q2" }, admin)).body.id as number;
    for (const [field, value] of [
      ["maxDevices", -1],
      ["maxConnections", 1.5],
      ["maxUplinkRate", 1_000_001],
      ["maxDevices", "many"],
    ] as const) {
      const r = await t.call("PUT", `/tenants/${id}`, { [field]: value }, admin);
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe("FORM_INVALID");
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    expect((await t.call("POST", "/tenants", { tenantName: "Q3", maxDevices: -5 }, admin)).status).toBe(400);
  });

  it("are set by the service administrator only: a tenant admin gets 403 on detail and edit", async () => {
    const tenant = (await t.call("POST", "/tenants", { tenantName: "Q4" }, admin)).body;
    const own = await t.addUser(tenant.tenantID, "q4-admin", "admin");
    for (const [method, body] of [["GET"], ["PUT", { maxDevices: 0 }]] as const) {
      const r = await t.call(method, `/tenants/${tenant.id}`, body, own.token);
      expect(r.status).toBe(403);
      expect(r.body.errorCode).toBe("PERMISSION_DENIED");
    }
  });

  it("refuse POST /devices over maxDevices with 400 FORM_INVALID naming maxDevices, and import rows past it", async () => {
    const tenant = (await t.call("POST", "/tenants", { tenantName: "Q5", maxDevices: 2 }, admin)).body;
    const user = (await t.addUser(tenant.tenantID, "q5-admin", "admin")).token;
    const productID = (await t.call("POST", "/products", { productName: "P", cloudProtocol: 1 }, user)).body.productID;
    const device = (deviceName: string) =>
      t.call("POST", "/devices", { productID, deviceName, deviceType: 1, upLinkSystem: 1, authType: 1 }, user);
    expect((await device("d1")).status).toBe(201);
    const over = await t.call("PUT", `/tenants/${tenant.id}`, { maxDevices: 1 }, admin);
    expect(over.status).toBe(200);
    const refused = await device("d2");
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: "FORM_INVALID" });
    expect(refused.body.errors.maxDevices).toMatch(/limit of 1 devices is reached/);

    await t.call("PUT", `/tenants/${tenant.id}`, { maxDevices: 3 }, admin);
    const csv = ["deviceName,product,authType,upLinkSystem", "i1,P,1,1", "i2,P,1,1", "i3,P,1,1"].join("\n");
    const res = await t.app.request("/api/v1/devices_import", {
      method: "POST",
      headers: { authorization: `Bearer ${user}`, "content-type": "text/csv" },
      body: csv,
    });
    expect(res.status).toBe(202);
    const task = await finished(user, ((await res.json()) as { statusUrl: string }).statusUrl);
    expect(task.result.created).toBe(2);
    expect(task.result.failed).toBe(1);
    expect(JSON.stringify(task.result.errors)).toMatch(/maxDevices/);
    expect((await t.call("GET", "/devices", undefined, user)).body.meta.count).toBe(3);
  });

  it("are documented in the OpenAPI document of POST /tenants and PUT /tenants/{id}", async () => {
    const res = await t.app.request("/api/v1/openapi.json", { headers: { authorization: `Bearer ${admin}` } });
    const doc = (await res.json()) as { paths: Record<string, Record<string, any>> };
    const schemaOf = (path: string, method: string) =>
      doc.paths[`/api/v1${path}`]![method].requestBody.content["application/json"].schema.properties;
    for (const [path, method] of [
      ["/tenants", "post"],
      ["/tenants/{id}", "put"],
    ] as const)
      for (const field of ["maxDevices", "maxConnections", "maxUplinkRate"])
        expect(schemaOf(path, method)[field].description).toMatch(/0 or null: unlimited/);
  });

  it("push a changed uplink rate to every attached adapter, and nothing when it is unchanged", async () => {
    const tenant = (await t.call("POST", "/tenants", { tenantName: "Q6" }, admin)).body;
    const adapter = t.attachDevice(424242, tenant.tenantID);
    await t.call("PUT", `/tenants/${tenant.id}`, { maxUplinkRate: 100 }, admin);
    await t.call("PUT", `/tenants/${tenant.id}`, { maxUplinkRate: 100, maxDevices: 9 }, admin);
    await t.call("PUT", `/tenants/${tenant.id}`, { maxUplinkRate: 0 }, admin);
    expect(adapter.sent.tenantLimits).toEqual([
      [tenant.tenantID, 100],
      [tenant.tenantID, 0],
    ]);
    adapter.detach();
  });
});
