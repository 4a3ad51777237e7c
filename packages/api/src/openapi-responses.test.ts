/**
 * Every operation of the OpenAPI document, driven in process in both forms: each real success answer is validated
 * against the document the same app serves (records are closed, so a missing, extra or mistyped field fails), and
 * every operation the document lists must have been driven (a new route cannot be left out).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProduct } from "@iot/registry";
import { firmwareDir, firmwareForm, lwm2mDevice, lwm2mProduct } from "./firmware-fixture.js";
import { OpenApiCheck } from "./openapi-check.js";
import { taskEnded } from "./task-ended.js";
import { testApp } from "./test-app.js";

type App = Awaited<ReturnType<typeof testApp>>;
type Json = Record<string, any>;

describe.each(["1", "2"] as const)("the Form %s OpenAPI document", (form) => {
  let t: App;
  let check: OpenApiCheck;
  let token: string;
  let tenantId: string;
  const ids: Record<string, any> = {};

  /** Calls the API and expects a documented success whose body the document's schema accepts. */
  const call = async (method: string, path: string, body?: unknown, init: RequestInit = {}): Promise<any> => {
    const res = await t.app.request(`/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined && !init.body ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...init,
    });
    const type = res.headers.get("content-type");
    const text = await res.text();
    const parsed = type?.includes("json") ? JSON.parse(text) : text || null;
    const problems = check.problems(method, `/api/v1${path}`, res.status, type, parsed);
    expect(problems, `${method} ${path} answered ${res.status}: ${text.slice(0, 400)}`).toEqual([]);
    return Object.assign(parsed ?? {}, {}) as Json & { location?: string };
  };
  /** Waits for a task to end (status 3 success or 4 failed), checking each status answer. */
  const finished = (statusUrl: string) => taskEnded(() => call("GET", statusUrl), { intervalMs: 10 });

  beforeAll(async () => {
    t = await testApp(form, {
      // Webhook receivers on loopback are allowed here; nothing listens on port 9, so a test delivery fails fast.
      deps: {
        webhooks: { allowPrivate: true, timeoutMs: 500, resolve: async () => ["127.0.0.1"] },
        firmwareDir: firmwareDir(),
      },
    });
    check = new OpenApiCheck(await (await t.app.request("/api/v1/openapi.json")).json());
    token = await t.login();
    tenantId = (await t.store.db.selectFrom("users").select("tenantId").where("id", "=", 1).executeTakeFirstOrThrow())
      .tenantId;
  });
  afterAll(() => t.close());

  it("answers health and login as documented", async () => {
    await call("GET", "/health");
    await call("POST", "/login", { username: "admin", password: "admin-pass-1" });
  });

  it("answers products, devices and gateways as documented", async () => {
    const productBody = (productName: string) =>
      form === "1" ? { productName, cloudProtocol: 1 } : { productName, description: "d" };
    const p = await call("POST", "/products", productBody("Meters"));
    ids.product = p;
    ids.spareProduct = (await call("POST", "/products", productBody("Spare"))).id;
    await call("GET", "/products");
    await call("GET", `/products/${p.id}`);
    await call("PUT", `/products/${p.id}`, { productName: "Meters 2" });

    const deviceBody = (deviceName: string) =>
      form === "1"
        ? { productID: p.productID, deviceName, upLinkSystem: 1, authType: 1, location: { lat: 1 }, metaData: { a: 1 } }
        : { productID: p.productID, deviceName, deviceType: 0, authType: 1, location: { lat: 1 } };
    const d = await call("POST", "/devices", deviceBody("meter-1"));
    ids.device = d;
    ids.spareDevice = (await call("POST", "/devices", deviceBody("meter-2"))).id;
    const g = await call("POST", "/gateways", {
      productID: p.productID,
      gatewayName: "gw-1",
      gatewayProtocol: 7,
      upLinkNetwork: 4,
      authType: 1,
    });
    ids.gateway = g;
    const now = Date.now();
    await t.store.db
      .insertInto("deviceEvents")
      .values({
        tenantId,
        deviceIntId: d.id,
        gatewayIntId: g.id,
        topic: "up",
        payload: new TextEncoder().encode("21.5"),
        ip: "127.0.0.1",
        qos: 1,
        msgTime: now,
        createAt: now,
        msgKey: "k1",
        metadata: JSON.stringify({ rssi: -70 }),
        resendId: null,
      })
      .execute();
    await t.store.db
      .insertInto("connectLogs")
      .values({
        tenantId,
        deviceIntId: d.id,
        deviceId: d.deviceID,
        deviceName: d.deviceName,
        connectStatus: 1,
        ip: "127.0.0.1",
        keepAlive: 60,
        sessionId: "s1",
        reason: null,
        createAt: now,
        updateAt: null,
      })
      .execute();
    // Online while its commands are sent, offline after: the group command below then ends at once.
    const session = t.attachDevice(d.id, tenantId);
    await call("POST", "/device_publish", { deviceID: d.deviceID, payload: "on" });
    await call("POST", "/device_publish", { deviceID: g.deviceID, payload: '{"channel":[]}', qos: 0 });
    session.detach();

    await call("GET", "/devices");
    await call("GET", `/devices/${d.id}`);
    await call("PUT", `/devices/${d.id}`, { deviceName: "meter-1b" });
    await call("GET", `/devices/${d.id}/events`);
    await call("GET", `/devices/${d.id}/connect_logs`);
    await call("GET", `/devices/${d.id}/control_logs`);
    await call("GET", "/gateways");
    await call("GET", `/gateways/${g.id}`);
    await call("PUT", `/gateways/${g.id}`, { gatewayName: "gw-1b" });
    await call("GET", `/gateways/${g.id}/events`);
    await call("GET", `/gateways/${g.id}/control_logs`);
    await call("GET", "/device_connect_logs");
    await call("GET", "/device_events");
    await call("GET", "/device_control_logs");
  });

  it("answers groups, group commands and tasks as documented", async () => {
    const groupBody = {
      productID: ids.product.productID,
      groupName: "G",
      ...(form === "2" ? { description: "d" } : {}),
    };
    const grp = await call("POST", "/groups", groupBody);
    ids.group = grp;
    await call("GET", "/groups");
    await call("GET", `/groups/${grp.id}`);
    await call("PUT", `/groups/${grp.id}`, { groupName: "G2" });
    await call("POST", `/groups/${grp.id}/devices`, { ids: [ids.device.id] });
    await call("GET", `/groups/${grp.id}/devices`);
    await call("GET", `/broker_select/groups/${grp.id}/not_joined_devices`);
    const { statusUrl } = await call("POST", "/group_publish", { groupID: grp.groupID, payload: "all on" });
    await finished(statusUrl);
    await call("GET", `/groups/${grp.id}/control_logs`);
  });

  it("answers callers, tenants, users and certificates as documented", async () => {
    const a = await call("POST", "/applications", { appName: "app" });
    await call("GET", "/applications");
    await call("GET", `/applications/${a.id}`);
    await call("PUT", `/applications/${a.id}`, { appName: "app 2" });
    await call("DELETE", `/applications?ids=${a.id}`);

    const tn = await call("POST", "/tenants", { tenantName: "Other" });
    await call("GET", "/tenants");
    await call("GET", `/tenants/${tn.id}`);
    await call("PUT", `/tenants/${tn.id}`, { tenantName: "Other 2", maxDevices: 10 });

    const u = await call("POST", "/users", { username: "viewer1", password: "viewer-pass", role: "viewer" });
    await call("GET", "/users");
    await call("GET", `/users/${u.id}`);
    await call("PUT", `/users/${u.id}`, { email: "viewer1@example.com" });
    await call("DELETE", `/users?ids=${u.id}`);

    const c = await call("POST", "/certs", { name: "field units", enable: 1 });
    await call("GET", "/certs");
    await call("GET", `/certs/${c.id}`);
    await call("PUT", `/certs/${c.id}`, { name: "field units 2" });
    await call("DELETE", `/certs?ids=${c.id}`);
  });

  it("answers policies, device policies and subscriptions as documented", async () => {
    const d = ids.device.id;
    const body = (name: string) => ({ name, topic: "t/#", access: form === "1" ? 1 : 0, allow: 1 });
    const p = await call("POST", "/policies", body("p1"));
    const p2 = await call("POST", "/policies", body("p2"));
    await call("GET", "/policies");
    await call("GET", `/policies/${p.id}`);
    await call("PUT", `/policies/${p.id}`, { name: "p1b" });
    await call("POST", `/policies/${p.id}/devices`, { devicesIntID: [d] });
    await call("GET", `/policies/${p.id}/devices`);
    await call("GET", `/broker_select/policies/${p.id}/not_joined_devices`);
    await call("GET", `/devices/${d}/policies`);
    await call("POST", `/devices/${d}/policies`, { ids: [p2.id] });
    await call("GET", `/broker_select/devices/${d}/not_joined_policies`);
    await call("DELETE", `/devices/${d}/policies?ids=${p2.id}`);
    await call("DELETE", `/policies/${p.id}/devices?ids=${d}`);
    await call("DELETE", `/policies?ids=${p.id},${p2.id}`);

    const s = await call("POST", `/devices/${d}/subscriptions`, { topic: "news/#", qos: 1 });
    await call("GET", `/devices/${d}/subscriptions`);
    await call("DELETE", `/devices/${d}/subscriptions?ids=${s.id}`);

    await call("POST", "/device_publish", { deviceID: ids.device.deviceID, payload: "on", topic: "cfg", retain: 1 });
    const retained = await call("GET", `/devices/${d}/retained?direction=command`);
    expect(retained.items).toMatchObject([{ direction: "command", topic: "cfg", payload: "on" }]);
    await call("DELETE", `/devices/${d}/retained?topic=cfg`);

    const alert = await t.store.db
      .insertInto("historyAlerts")
      .values({
        tenantId,
        deviceIntId: d,
        alertName: "hot",
        alertContent: "above 30",
        alertDetail: JSON.stringify({ temperature: 31.5 }),
        alertSeverity: 1,
        alertTimes: 2,
        startTime: Date.now(),
        endTime: null,
        createAt: Date.now(),
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await call("GET", "/history_alerts");
    await call("DELETE", `/history_alerts?ids=${alert.id}`);
  });

  it("answers the data model and device data as documented", async () => {
    const p = ids.product;
    const dp = await call("POST", "/data_points", {
      productID: p.productID,
      dataPointName: "Temperature",
      dataPointID: "temp",
      pointDataType: 1,
      dataTransType: 3,
    });
    await call("GET", "/data_points");
    await call("GET", `/data_points/${dp.id}`);
    await call("PUT", `/data_points/${dp.id}`, { dataPointName: "Temperature 2" });
    const viaPoints = await call("POST", "/data_points", {
      productID: p.productID,
      streamName: "S0",
      streamType: 1,
      streamDataType: 1,
      topic: "s0",
    });
    await call("PUT", `/data_points/${viaPoints.id}`, { streamName: "S0b" });
    const s = await call("POST", "/data_streams", {
      productID: p.productID,
      streamName: "S1",
      streamType: 1,
      streamDataType: 1,
      topic: "s1",
      dataPoints: [dp.id],
    });
    await call("GET", "/data_streams");
    await call("GET", `/data_streams/${s.id}`);
    await call("PUT", `/data_streams/${s.id}`, { streamName: "S1b" });
    const m = await call("POST", "/metrics", { metricName: "F", dataPointIntID: dp.id, expressions: "x * 1.8 + 32" });
    await call("GET", "/metrics");
    await call("GET", `/metrics/${m.id}`);
    await call("PUT", `/metrics/${m.id}`, { metricName: "F2" });
    const r = await call("POST", "/product_resources", { codeValue: "2", dataPointIntID: dp.id, productIntID: p.id });
    await call("GET", "/product_resources");
    const tpl = await call("POST", "/app_templates", {
      productID: p.productID,
      templateName: "Switch",
      templateType: 1,
      dataPointIntID: dp.id,
    });
    await call("GET", "/app_templates");
    await call("GET", `/app_templates/${tpl.id}`);
    await call("PUT", `/app_templates/${tpl.id}`, { templateName: "Switch 2" });
    await call("GET", `/device_consoles/${ids.device.id}`);
    await call("GET", `/original_data?deviceID=${ids.device.deviceID}`);
    await call("GET", `/metrics_data?deviceID=${ids.device.deviceID}`);

    await call("DELETE", `/app_templates?ids=${tpl.id}`);
    await call("DELETE", `/product_resources?ids=${r.id}`);
    await call("DELETE", `/metrics?ids=${m.id}`);
    await call("DELETE", `/data_streams?ids=${s.id},${viaPoints.id}`);
    await call("DELETE", `/data_points?ids=${dp.id}`);
  });

  it("answers schedules as documented", async () => {
    const timing = { scheduleType: 1, IntervalMinute: 5 };
    const post = async (path: string, body: object) => {
      const res = await t.app.request(`/api/v1${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      expect(
        check.problems("POST", `/api/v1${path}`, res.status, res.headers.get("content-type"), text || null),
      ).toEqual([]);
      return res.headers.get("location")!.replace("/api/v1", "");
    };
    const device = await post("/device_schedule_publish", {
      deviceID: ids.device.deviceID,
      payload: "on",
      scheduleName: "lights",
      ...timing,
    });
    const group = await post("/group_schedule_publish", {
      groupID: ids.group.groupID,
      payload: "on",
      scheduleName: "all lights",
      ...timing,
    });
    await call("GET", "/device_schedule_publish");
    await call("GET", device);
    await call("GET", "/group_schedule_publish");
    await call("GET", group);
    await call("DELETE", `/device_schedule_publish?ids=${device.split("/").at(-1)}`);
    await call("DELETE", `/group_schedule_publish?ids=${group.split("/").at(-1)}`);
  });

  it("answers device export and import as documented", async () => {
    const exported = await finished((await call("GET", "/devices_export")).statusUrl);
    const csv: string = await call("GET", exported.result.downloadUrl.replace("/api/v1", ""));
    expect(csv.split("\n")[0]).toContain("deviceName");
    const file = new FormData();
    file.append("file", new Blob([csv], { type: "text/csv" }), "devices.csv");
    await finished((await call("POST", "/devices_import", undefined, { body: file })).statusUrl);
    const asText = { body: csv, headers: { "content-type": "text/csv", authorization: `Bearer ${token}` } };
    await finished((await call("POST", "/devices_import", undefined, asText)).statusUrl);
  });

  it("answers webhooks and the event stream as documented", async () => {
    const w = await call("POST", "/webhooks", {
      webhookName: "orders",
      url: "http://receiver.test:9/hooks",
      eventTypes: ["uplink"],
      secret: "a-secret-of-16-chars",
    });
    await call("GET", "/webhooks");
    await call("GET", `/webhooks/${w.id}`);
    await call("PUT", `/webhooks/${w.id}`, { webhookName: "orders 2" });
    await call("POST", `/webhooks/${w.id}/test`);
    await call("GET", `/webhooks/${w.id}/deliveries`);
    await call("DELETE", `/webhooks?ids=${w.id}`);

    const res = await t.app.request("/api/v1/stream", { headers: { authorization: `Bearer ${token}` } });
    const type = res.headers.get("content-type");
    await res.body!.cancel();
    expect(check.problems("GET", "/api/v1/stream", res.status, type, "")).toEqual([]);
  });

  it("answers the deletes of groups, devices, gateways and products as documented", async () => {
    await call("DELETE", `/groups/${ids.group.id}/devices?ids=${ids.device.id}`);
    await call("DELETE", `/groups?ids=${ids.group.id}`);
    await call("DELETE", `/devices?ids=${ids.spareDevice}`);
    await call("DELETE", `/gateways?ids=${ids.gateway.id}`);
    await call("DELETE", `/products?ids=${ids.spareProduct}`);
  });

  it("answers firmware packages and updates as documented", async () => {
    const productID = await lwm2mProduct(t, 1, "Firmware");
    const fw = await call("POST", "/firmwares", undefined, {
      body: firmwareForm({ name: "app", version: "1.0.0", productID }, new Uint8Array(100)),
    });
    await call("GET", "/firmwares");
    await call("GET", `/firmwares/${fw.firmwareID}`);
    const deviceID = await lwm2mDevice(t, 1, productID, "490154203237518");
    await call("POST", `/firmwares/${fw.firmwareID}/update`, { deviceIDs: [deviceID] });
    await call("DELETE", `/firmwares/${fw.firmwareID}`);
  });

  it("answers a group's LoRaWAN multicast session as documented", async () => {
    // Form 2 products are MQTT ones: the LoRa product is made in the store.
    const caller = { userIntId: 1, username: "admin", tenantId, role: "admin" as const, serviceAdmin: true };
    const lora = await createProduct(t.store.db, caller, { productName: "Lights", cloudProtocol: 4 });
    const group = await call("POST", "/groups", { productID: lora.productId, groupName: "Lights", description: "d" });
    const session = { mcAddr: "01AB23CD", mcNwkSKey: "0".repeat(32), mcAppSKey: "F".repeat(32) };
    await call("PUT", `/groups/${group.id}/lora-multicast`, session);
    await call("GET", `/groups/${group.id}/lora-multicast`);
    await call("DELETE", `/groups/${group.id}/lora-multicast`);
  });

  it("has driven every operation the document lists", () => {
    expect(check.all.filter((op) => !check.checked.has(op))).toEqual([]);
  });
});
