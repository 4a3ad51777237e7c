import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "./test-app.js";

/**
 * Walks every operation of the OpenAPI document as a second tenant, using the
 * first tenant's ids, and asserts nothing of the first tenant leaks or changes.
 * New endpoints are covered as soon as they are declared.
 */
describe.each(["1", "2"] as const)("tenant isolation (Form %s)", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let a: string;
  let b: string;
  /** Ids of tenant A's records by the first path segment that names them. */
  const ids: Record<string, number> = {};
  /** Strings only tenant A's records contain: none may appear in B's answers. */
  const secrets: string[] = [];
  let aDeviceId = "";

  beforeAll(async () => {
    t = await testApp(form);
    a = await t.login();
    const call = (m: string, p: string, body?: unknown) => t.call(m, p, body, a);
    const product = (
      await call("POST", "/products", { productName: "A-secret-product", cloudProtocol: 1, description: "A-secret" })
    ).body;
    const deviceBody = form === "1" ? { deviceType: 1, upLinkSystem: 1 } : { deviceType: 0 };
    const device = (
      await call("POST", "/devices", {
        productID: product.productID,
        deviceName: "A-secret-device",
        authType: 1,
        ...deviceBody,
      })
    ).body;
    const group = (
      await call("POST", "/groups", {
        productID: product.productID,
        groupName: "A-secret-group",
        description: "A-secret",
      })
    ).body;
    await call("POST", `/groups/${group.id}/devices`, { ids: [device.id] });
    const app = (await call("POST", "/applications", { appName: "A-secret-app", role: "viewer" })).body;
    Object.assign(ids, { products: product.id, devices: device.id, groups: group.id, applications: app.id, users: 1 });
    if (form === "1") {
      const gw = (
        await call("POST", "/gateways", {
          productID: product.productID,
          gatewayName: "A-secret-gw",
          gatewayProtocol: 1,
          authType: 1,
        })
      ).body;
      ids.gateways = gw.id;
      secrets.push(gw.deviceID, gw.token);
    }
    await call("POST", "/device_publish", { deviceID: device.deviceID, payload: "A-secret-command" });
    const cert = (await call("POST", "/certs", { name: "A-secret-cert", enable: 1 })).body;
    const policy = (
      await call("POST", "/policies", {
        name: "A-secret-policy",
        topic: "A-secret/#",
        access: form === "1" ? 3 : 2,
        allow: 1,
      })
    ).body;
    await call("POST", `/devices/${device.id}/policies`, { ids: [policy.id] });
    await call("POST", `/devices/${device.id}/subscriptions`, { topic: "A-secret/sub" });
    const retained = { deviceID: device.deviceID, payload: "A-secret-state", topic: "A-secret/state", retain: 1 };
    expect((await call("POST", "/device_publish", retained)).status).toBe(201);
    const point = (
      await call("POST", "/data_points", {
        productIntID: product.id,
        dataPointName: "A-secret-point",
        dataPointID: "temp",
        pointDataType: 1,
        dataTransType: 1,
      })
    ).body;
    const stream = (
      await call("POST", "/data_streams", {
        productIntID: product.id,
        streamName: "A-secret-stream",
        streamType: 1,
        streamDataType: 1,
        topic: "up",
        dataPoints: [point.id],
      })
    ).body;
    const metric = (
      await call("POST", "/metrics", {
        metricName: "A-secret-metric",
        dataPointIntID: point.id,
        chartType: 1,
        isShow: 1,
        expressions: "x * 2",
      })
    ).body;
    const template = (
      await call("POST", "/app_templates", {
        productID: product.productID,
        templateName: "A-secret-template",
        templateType: 1,
        dataPointIntID: point.id,
      })
    ).body;
    const resource = (
      await call("POST", "/product_resources", {
        codeValue: "A-secret-code",
        dataPointIntID: point.id,
        productIntID: String(product.id),
        productItemIntID: 0,
      })
    ).body;
    Object.assign(ids, {
      certs: cert.id,
      policies: policy.id,
      data_points: point.id,
      data_streams: stream.id,
      metrics: metric.id,
      app_templates: template.id,
      product_resources: resource.id,
      device_consoles: device.id,
    });
    secrets.push(
      product.productID,
      device.deviceID,
      device.deviceUsername,
      device.token,
      group.groupID,
      app.appID,
      "A-secret",
    );
    for (const [k, v] of Object.entries(ids)) expect(v, k).toBeGreaterThan(0);
    aDeviceId = device.deviceID;

    const tenant = (await call("POST", "/tenants", { tenantName: "B" })).body;
    const user = await call("POST", "/users", {
      username: `b-admin-${form}`,
      password: "b-admin-pass",
      role: "admin",
      tenantID: tenant.tenantID,
    });
    expect(user.status).toBe(201);
    b = await t.login(`b-admin-${form}`, "b-admin-pass");
  });
  afterAll(() => t.close());

  const idFor = (path: string) => {
    const segment = path.replace("/api/v1/broker_select", "/api/v1").split("/")[3]!;
    return ids[segment];
  };

  it("answers 404 for every operation on another tenant's record and changes nothing", async () => {
    const doc = (await (await t.app.request("/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    let walked = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.includes("{")) continue;
      const id = idFor(path);
      if (id === undefined) continue; // a resource tenant A has none of here
      for (const method of Object.keys(ops)) {
        const url = path.replace("/api/v1", "").replace(/\{\w+\}/, String(id));
        // A body each path takes (bodies are strict, and checked before the record is looked up): device ids to
        // bind, a group's multicast session, else ids of a membership change.
        const members = url.startsWith("/policies/")
          ? { devicesIntID: [ids.devices] }
          : url.endsWith("/lora-multicast")
            ? { mcAddr: "01AB23CD", mcKey: "000102030405060708090A0B0C0D0E0F" }
            : { ids: [ids.devices] };
        const body = method === "post" || method === "put" ? members : undefined;
        const r = await t.call(method.toUpperCase(), method === "delete" ? `${url}?ids=${ids.devices}` : url, body, b);
        expect(r.status, `${method} ${url}`).toBe(404);
        walked++;
      }
    }
    expect(walked).toBeGreaterThan(10);
    expect((await t.call("GET", `/devices/${ids.devices}`, undefined, a)).body.deviceName).toBe("A-secret-device");
    expect((await t.call("GET", `/groups/${ids.groups}/devices`, undefined, a)).body.meta.count).toBe(1);
    expect((await t.call("GET", `/devices/${ids.devices}/retained`, undefined, a)).body.meta.count).toBe(1);
  });

  it("lists, filters and looks up nothing of another tenant", async () => {
    type Param = { name: string; in: string; required?: boolean; schema?: { pattern?: string; enum?: string[] } };
    const doc = (await (await t.app.request("/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { parameters?: Param[] }>>;
    };
    // A value each filter accepts: tenant A's own ids for integer filters, an enum member, or text.
    const valueFor = (p: Param) =>
      p.schema?.enum
        ? p.schema.enum[0]
        : p.schema?.pattern?.includes("\\d")
          ? String(ids.gateways ?? ids.devices)
          : "A";
    let listed = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      // GET /stream never ends: its tenant separation is checked in webhooks.test.ts ("GET /stream").
      if (path.includes("{") || !ops.get || path.endsWith("/health") || path.endsWith("/stream")) continue;
      const required = (ops.get.parameters ?? []).filter((p) => p.in === "query" && p.required);
      if (required.length > 0) {
        // Looked up by A's string ids (e.g. /original_data?deviceID=…): B must get 404.
        const query = required.map((p) => `${p.name}=${p.name === "deviceID" ? aDeviceId : valueFor(p)}`).join("&");
        const r = await t.call("GET", `${path.replace("/api/v1", "")}?${query}`, undefined, b);
        expect(r.status, `${path}?${query}`).toBe(404);
        listed++;
        continue;
      }
      const filters = (ops.get.parameters ?? [])
        .filter((p) => p.in === "query" && !p.name.startsWith("_"))
        .map((p) => `${p.name}=${valueFor(p)}`);
      for (const query of ["", ...filters]) {
        const r = await t.call("GET", `${path.replace("/api/v1", "")}${query ? `?${query}` : ""}`, undefined, b);
        // An export starts a task over the caller's own devices (its download is checked in device-transfer.test.ts).
        expect(path.endsWith("/devices_export") ? [202] : [200, 403], `${path}?${query}`).toContain(r.status);
        const text = JSON.stringify(r.body);
        for (const s of secrets) expect(text, `${path}?${query}`).not.toContain(s);
        listed++;
      }
    }
    expect(listed).toBeGreaterThan(8);
  });

  it("deletes nothing of another tenant when a delete names its ids", async () => {
    for (const [collection, id] of Object.entries(ids)) {
      if (["users", "product_resources", "device_consoles"].includes(collection)) continue;
      const r = await t.call("DELETE", `/${collection}?ids=${id}`, undefined, b);
      expect([204, 403], collection).toContain(r.status);
      expect((await t.call("GET", `/${collection}/${id}`, undefined, a)).status, collection).toBe(200);
    }
    // Resources have no detail view: A's list still holds the one B tried to delete.
    expect((await t.call("DELETE", `/product_resources?ids=${ids.product_resources}`, undefined, b)).status).toBe(204);
    const resources = (await t.call("GET", "/product_resources", undefined, a)).body.items.map(
      (r: { id: number }) => r.id,
    );
    expect(resources).toContain(ids.product_resources);
  });

  it("refuses to create records that point at another tenant's product, device or group", async () => {
    const product = (await t.call("GET", `/products/${ids.products}`, undefined, a)).body;
    const device = (await t.call("GET", `/devices/${ids.devices}`, undefined, a)).body;
    const group = (await t.call("GET", `/groups/${ids.groups}`, undefined, a)).body;
    const mk = await t.call(
      "POST",
      "/devices",
      { productID: product.productID, deviceName: "x", authType: 1, deviceType: form === "1" ? 1 : 0, upLinkSystem: 1 },
      b,
    );
    expect(mk.body.errors).toHaveProperty("productID");
    const g = await t.call("POST", "/groups", { productID: product.productID, groupName: "x", description: "x" }, b);
    expect(g.status).toBe(400);
    const pub = await t.call("POST", "/device_publish", { deviceID: device.deviceID, payload: "x" }, b);
    expect(pub.status).toBe(404);
    expect(group.groupID).toBeTruthy();
  });
});
