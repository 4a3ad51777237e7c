import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricValue } from "@iot/config";
import { createDevice, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

/** Every metric family the central node's /metrics must show (README, Metrics). */
const CENTRAL_METRICS = [
  "iot_registry_uplinks_total",
  "iot_uplink_write_batch_rows",
  "iot_uplink_write_seconds",
  "iot_uplink_writer_queue",
  "iot_database_errors_total",
  "iot_pipeline_lag_seconds",
  "iot_commands_total",
  "iot_registry_adapters",
  "iot_registry_sessions",
];

/** The value of the first sample line of `series` (name with its labels) in a scrape, or undefined. */
function sample(body: string, series: string): number | undefined {
  const line = body.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let admin: Caller;
  let deviceIntId: number;
  let deviceId: string;
  const scrape = async (headers: Record<string, string> = {}) => {
    const res = await t.app.request("/metrics", { headers });
    return { status: res.status, type: res.headers.get("content-type") ?? "", body: await res.text() };
  };

  beforeAll(async () => {
    t = await testApp("1");
    const login = (await t.call("POST", "/login", { username: "admin", password: "admin-pass-1" })).body;
    token = login.token;
    admin = {
      userIntId: login.userIntID,
      username: "admin",
      tenantId: login.tenantID,
      role: "admin",
      serviceAdmin: true,
    };
    const productID = (
      await t.call("POST", "/products", { productName: "M", cloudProtocol: 1, description: "" }, token)
    ).body.productID as string;
    const d = await createDevice(t.store.db, admin, {
      productId: productID,
      deviceName: "m-1",
      upLinkSystem: 1,
      authType: 1,
    });
    deviceIntId = d.id;
    deviceId = d.deviceId;
  });
  afterAll(() => t.close());

  it("answers the Prometheus text format with every central metric, without a token by default", async () => {
    const s = await scrape();
    expect(s.status).toBe(200);
    expect(s.type).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8/);
    for (const name of CENTRAL_METRICS) expect(s.body, name).toMatch(new RegExp(`^# TYPE ${name} `, "m"));
  });

  it("is not the spec's metrics resource: /api/v1/metrics still needs a caller", async () => {
    expect((await t.app.request("/api/v1/metrics")).status).toBe(401);
  });

  it("counts a stored uplink's batch and a command's issue and downlink", async () => {
    const before = await scrape();
    const batches = sample(before.body, "iot_uplink_write_batch_rows_count") ?? 0;
    const rows = sample(before.body, "iot_uplink_write_batch_rows_sum") ?? 0;
    await Promise.all(
      [1, 2, 3].map((n) =>
        t.store.uplinks.write({
          msgKey: `metrics-test:${n}`,
          tenantId: admin.tenantId,
          deviceIntId,
          gatewayIntId: null,
          topic: "data",
          payload: Buffer.from("{}"),
          ip: null,
          qos: 1,
          msgTime: Date.now(),
        }),
      ),
    );
    const issued = await metricValue("iot_commands_total", { outcome: "issued" });
    const downlinked = await metricValue("iot_commands_total", { outcome: "downlinked" });
    const attached = t.attachDevice(deviceIntId, admin.tenantId, "fake-metrics");
    const r = await t.call("POST", "/device_publish", { deviceID: deviceId, payload: "on" }, token);
    expect(r.status).toBe(201);
    const after = await scrape();
    expect(sample(after.body, "iot_uplink_write_batch_rows_count")).toBeGreaterThan(batches);
    expect(sample(after.body, "iot_uplink_write_batch_rows_sum")).toBe(rows + 3);
    expect(sample(after.body, 'iot_commands_total{outcome="issued"}')).toBe(issued + 1);
    expect(sample(after.body, 'iot_commands_total{outcome="downlinked"}')).toBe(downlinked + 1);
    expect(sample(after.body, 'iot_registry_sessions{protocol="mqtt"}')).toBeGreaterThanOrEqual(1);
    attached.detach();
  });

  it("counts a statement the database refuses as a database error", async () => {
    const before = await metricValue("iot_database_errors_total", { engine: "sqlite", kind: "constraint" });
    await expect(
      t.store.db
        .insertInto("tenants")
        .values({ tenantId: admin.tenantId, tenantName: "dup", enable: 1, createAt: 0, updateAt: null })
        .execute(),
    ).rejects.toThrow();
    expect(await metricValue("iot_database_errors_total", { engine: "sqlite", kind: "constraint" })).toBe(before + 1);
  });

  it("needs the bearer token when IOT_METRICS_TOKEN is set", async () => {
    const locked = await testApp("1", { deps: { metricsToken: "scrape-me" } });
    try {
      const refused = await locked.app.request("/metrics");
      expect(refused.status).toBe(401);
      expect(await refused.text()).not.toContain("# TYPE");
      expect((await locked.app.request("/metrics", { headers: { authorization: "Bearer nope" } })).status).toBe(401);
      const ok = await locked.app.request("/metrics", { headers: { authorization: "Bearer scrape-me" } });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain("# TYPE iot_registry_uplinks_total counter");
    } finally {
      await locked.close();
    }
  });
});

describe("GET /api/v1/health", () => {
  it("reports the database engine with a ping, and each attached adapter's state and sessions", async () => {
    const t = await testApp("1");
    try {
      const attached = t.attachDevice(5, "T1", "mqtt-test-1");
      const h = await t.call("GET", "/health");
      expect(h.status).toBe(200);
      expect(h.body.status).toBe("ok");
      expect(h.body.database).toBe("sqlite");
      expect(h.body.databaseHealth).toMatchObject({ engine: "sqlite", ok: true });
      expect(h.body.databaseHealth.latencyMs).toBeGreaterThanOrEqual(0);
      expect(h.body.databaseHealth.latencyMs).toBeLessThan(2000);
      expect(h.body.adapters).toEqual([
        expect.objectContaining({
          protocol: 1,
          instance: "mqtt-test-1",
          state: "attached",
          sessions: 1,
          connectedDevices: 1,
        }),
      ]);
      // One node on SQLite: this one, with its adapters.
      expect(h.body.nodes).toEqual([
        {
          nodeId: expect.any(String),
          state: "up",
          startedAt: expect.any(String),
          adapters: [expect.objectContaining({ protocol: 1, instance: "mqtt-test-1", sessions: 1 })],
        },
      ]);
      attached.detach();
    } finally {
      await t.close();
    }
  });

  it("answers the device listener addresses in Form 1 too, as Form 2 device details carry them", async () => {
    const t = await testApp("1");
    try {
      const h = (await t.call("GET", "/health")).body;
      expect(h.brokers).toEqual({ mqttBroker: "iot.example:1883", mqttsBroker: "iot.example:8883" });
    } finally {
      await t.close();
    }
  });

  it("lists a detached adapter whose sessions wait out the grace as reconnecting, until it comes back", async () => {
    const t = await testApp("1");
    try {
      const link = { instanceId: "coap-gone", protocol: 2, version: "v", attachedAt: Date.now() - 1000 };
      const attached = t.attachDevice(6, "T1", link.instanceId);
      const sessions = attached.detach();
      t.sessions.park(link.instanceId, sessions, 60_000, () => {}, link);
      const h = (await t.call("GET", "/health")).body;
      expect(h.adapters).toEqual([]);
      expect(h.reconnectingAdapters).toEqual([
        expect.objectContaining({ protocol: 2, instance: "coap-gone", state: "reconnecting", sessions: 1 }),
      ]);
      expect(h.reconnectingAdapters[0].detachedAt).toEqual(expect.any(String));
      t.sessions.unpark(link.instanceId);
      expect((await t.call("GET", "/health")).body.reconnectingAdapters).toEqual([]);
    } finally {
      t.sessions.clearParked();
      await t.close();
    }
  });

  it("reports degraded with the reason when the database does not answer", async () => {
    const t = await testApp("1");
    await t.store.close();
    try {
      const h = await t.call("GET", "/health");
      expect(h.status).toBe(200);
      expect(h.body.status).toBe("degraded");
      expect(h.body.databaseHealth.ok).toBe(false);
      expect(h.body.databaseHealth.error).toEqual(expect.any(String));
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
