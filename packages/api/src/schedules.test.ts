import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevice, ScheduleRunner, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString().slice(0, 19).replace("T", " ");

describe("scheduled commands over the API", () => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let admin: Caller;
  let device: { id: number; deviceId: string };
  let group: { id: number; groupID: string };

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
    await t.addTenant("tenant2");
    ({ token: eveToken } = await t.addUser("tenant2", "eve", "admin"));
    const productID = (await t.call("POST", "/products", { productName: "Lamps", cloudProtocol: 1 }, token)).body
      .productID as string;
    device = await createDevice(t.store.db, admin, {
      productId: productID,
      deviceName: "lamp",
      upLinkSystem: 1,
      authType: 1,
    });
    group = (await t.call("POST", "/groups", { productID, groupName: "lamps" }, token)).body;
    await t.call("POST", `/groups/${group.id}/devices`, { ids: [device.id] }, token);
  });
  afterAll(async () => t.close());

  it("stores a device schedule (201, empty) and shows it with its next run in the list and the detail", async () => {
    const res = await t.app.request("/api/v1/device_schedule_publish", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({
        deviceID: device.deviceId,
        deviceIntID: device.id,
        payload: "on",
        topic: "cmd/light",
        scheduleName: "lights",
        scheduleType: 1,
        IntervalMinute: "5",
      }),
    });
    expect(res.status).toBe(201);
    expect(await res.text()).toBe("");
    const location = res.headers.get("location")!;
    expect(location).toMatch(/^\/api\/v1\/device_schedule_publish\/\d+$/);
    const detail = await t.call("GET", location.replace("/api/v1", ""), undefined, token);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      scheduleName: "lights",
      scheduleType: 1,
      IntervalMinute: "5",
      deviceID: device.deviceId,
      topic: "cmd/light",
      payload: "on",
      lastRunAt: null,
      lastResult: null,
      createUser: "admin",
    });
    expect(Date.parse(`${detail.body.nextRunAt.replace(" ", "T")}Z`) - Date.now()).toBeGreaterThan(4 * 60_000);
    const listed = await t.call("GET", "/device_schedule_publish?_limit=5", undefined, token);
    expect(listed.body.meta).toMatchObject({ count: 1, limit: 5, page: 1 });
    expect(listed.body.items[0].id).toBe(detail.body.id);
  });

  it("answers FORM_INVALID naming the field for a bad interval, a past time and a bad cron", async () => {
    const base = { deviceID: device.deviceId, payload: "x", scheduleName: "bad" };
    const bad = async (extra: object) => t.call("POST", "/device_schedule_publish", { ...base, ...extra }, token);
    expect((await bad({ scheduleType: 1, IntervalMinute: "0" })).body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { IntervalMinute: expect.any(String) },
    });
    expect((await bad({ scheduleType: 1, IntervalMinute: "five" })).body.errors).toHaveProperty("IntervalMinute");
    const past = await bad({ scheduleType: 0, crontabTime: "2001-01-01 00:00:00" });
    expect([past.status, past.body.errors]).toEqual([400, { crontabTime: "must be in the future" }]);
    const cron = await bad({ scheduleType: 2, cronExpression: "every day" });
    expect([cron.status, Object.keys(cron.body.errors)]).toEqual([400, ["cronExpression"]]);
    expect((await bad({ scheduleType: 3 })).body.errors).toHaveProperty("scheduleType");
  });

  it("refuses a schedule whose payload the device's or group's command rules refuse, naming payload", async () => {
    const pumps = (await t.call("POST", "/products", { productName: "Pumps", cloudProtocol: 1 }, token)).body as {
      id: number;
      productID: string;
    };
    const speed = await t.call(
      "POST",
      "/data_points",
      {
        productIntID: pumps.id,
        dataPointName: "speed",
        dataPointID: "speed",
        dataTransType: 2,
        pointDataType: 1,
        lowerLimit: 0,
        upperLimit: 100,
      },
      token,
    );
    expect(speed.status, JSON.stringify(speed.body)).toBe(201);
    const stream = await t.call(
      "POST",
      "/data_streams",
      {
        productID: pumps.productID,
        streamName: "Pump",
        streamType: 2,
        streamDataType: 1,
        topic: "cmd/pump",
        dataPoints: [speed.body.id],
      },
      token,
    );
    expect(stream.status, JSON.stringify(stream.body)).toBe(201);
    const pump = await createDevice(t.store.db, admin, {
      productId: pumps.productID,
      deviceName: "pump",
      upLinkSystem: 1,
      authType: 1,
    });
    const pumpGroup = (await t.call("POST", "/groups", { productID: pumps.productID, groupName: "pumps" }, token)).body;
    const timing = { scheduleName: "pump", scheduleType: 1, IntervalMinute: 5 };
    const count = async () =>
      (await t.call("GET", "/device_schedule_publish", undefined, token)).body.meta.count +
      (await t.call("GET", "/group_schedule_publish", undefined, token)).body.meta.count;
    const before = await count();

    const tooFast = { deviceID: pump.deviceId, payload: '{"speed": 250}', ...timing };
    const bad = await t.call("POST", "/device_schedule_publish", tooFast, token);
    expect([bad.status, bad.body.errorCode]).toEqual([400, "FORM_INVALID"]);
    expect(bad.body.errors).toEqual({ "payload.speed": "must be at most 100 (upperLimit)" });
    const badGroup = await t.call(
      "POST",
      "/group_schedule_publish",
      { groupID: pumpGroup.groupID, payload: '{"speed": "fast"}', ...timing },
      token,
    );
    expect([badGroup.status, Object.keys(badGroup.body.errors)]).toEqual([400, ["payload.speed"]]);
    expect(await count()).toBe(before);

    const ok = await t.call("POST", "/device_schedule_publish", { ...tooFast, payload: '{"speed": 50}' }, token);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const okGroup = await t.call(
      "POST",
      "/group_schedule_publish",
      { groupID: pumpGroup.groupID, payload: '{"speed": 10}', ...timing },
      token,
    );
    expect(okGroup.status, JSON.stringify(okGroup.body)).toBe(201);
    expect(await count()).toBe(before + 2);
    for (const path of ["/device_schedule_publish", "/group_schedule_publish"]) {
      const mine = (await t.call("GET", path, undefined, token)).body.items.filter(
        (x: { scheduleName: string }) => x.scheduleName === "pump",
      );
      expect(mine).toHaveLength(1);
      expect((await t.call("DELETE", `${path}?ids=${mine[0].id}`, undefined, token)).status).toBe(204);
    }
  });

  it("fires a group schedule as a group command whose task the detail links to", async () => {
    const res = await t.call(
      "POST",
      "/group_schedule_publish",
      { groupID: group.groupID, payload: "all on", scheduleName: "once", scheduleType: 0, crontabTime: inAnHour() },
      token,
    );
    expect(res.status).toBe(201);
    const [s] = (await t.call("GET", "/group_schedule_publish", undefined, token)).body.items;
    expect(s).toMatchObject({ groupID: group.groupID, groupName: "lamps", scheduleType: 0, needAck: 0 });
    const runner = new ScheduleRunner(t.store.db, t.commands);
    expect(await runner.tick(Date.now() + 3_600_000)).toBe(1);
    const after = (await t.call("GET", `/group_schedule_publish/${s.id}`, undefined, token)).body;
    expect(after.nextRunAt).toBeNull();
    expect(after.lastResult).toMatchObject({ statusUrl: expect.stringMatching(/^\/task_status\//), status: 4 });
    const task = await t.call("GET", after.lastResult.statusUrl, undefined, token);
    expect(task.body).toMatchObject({ result: { total: 1, failed: 1 } });
  });

  it("schedules QoS 2 (exactly once) commands for a device and a group, and runs them at QoS 2", async () => {
    const once = { payload: "exactly once", scheduleType: 0, crontabTime: inAnHour() };
    const toDevice = { deviceID: device.deviceId, scheduleName: "qos2 device", qos: 2, ...once };
    expect((await t.call("POST", "/device_schedule_publish", toDevice, token)).status).toBe(201);
    const toGroup = { groupID: group.groupID, scheduleName: "qos2 group", qos: 2, ...once };
    expect((await t.call("POST", "/group_schedule_publish", toGroup, token)).status).toBe(201);
    const disagree = { ...toGroup, scheduleName: "disagree", needAck: 0 };
    expect((await t.call("POST", "/group_schedule_publish", disagree, token)).status).toBe(400);
    const named = async (path: string, name: string) =>
      (await t.call("GET", path, undefined, token)).body.items.find(
        (x: { scheduleName: string }) => x.scheduleName === name,
      );
    expect(await named("/device_schedule_publish", "qos2 device")).toMatchObject({ qos: 2 });
    expect(await named("/group_schedule_publish", "qos2 group")).toMatchObject({ needAck: 1, qos: 2 });
    const runner = new ScheduleRunner(t.store.db, t.commands);
    await runner.tick(Date.now() + 3_600_000);
    const logs = await t.store.db
      .selectFrom("controlLogs")
      .select(["payload", "qos"])
      .where("payload", "=", "exactly once")
      .execute();
    expect(logs.length).toBeGreaterThanOrEqual(2);
    expect(logs.every((l) => l.qos === 2)).toBe(true);
  });

  it("answers 404 for another tenant's schedule and ignores its ids on delete", async () => {
    const [s] = (await t.call("GET", "/device_schedule_publish", undefined, token)).body.items;
    expect((await t.call("GET", `/device_schedule_publish/${s.id}`, undefined, eveToken)).status).toBe(404);
    expect((await t.call("GET", `/group_schedule_publish/${s.id}`, undefined, token)).status).toBe(404);
    expect((await t.call("GET", "/device_schedule_publish", undefined, eveToken)).body.meta.count).toBe(0);
    expect((await t.call("DELETE", `/device_schedule_publish?ids=${s.id}`, undefined, eveToken)).status).toBe(204);
    expect((await t.call("GET", `/device_schedule_publish/${s.id}`, undefined, token)).status).toBe(200);
    const other = await t.call(
      "POST",
      "/device_schedule_publish",
      { deviceID: device.deviceId, payload: "x", scheduleName: "x", scheduleType: 1, IntervalMinute: 1 },
      eveToken,
    );
    expect(other.status).toBe(404);
  });

  it("deletes schedules by ids (204) and documents the endpoints", async () => {
    const [s] = (await t.call("GET", "/device_schedule_publish", undefined, token)).body.items;
    expect((await t.call("DELETE", `/device_schedule_publish?ids=${s.id}`, undefined, token)).status).toBe(204);
    expect((await t.call("GET", `/device_schedule_publish/${s.id}`, undefined, token)).status).toBe(404);
    const doc = (await t.call("GET", "/openapi.json")).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/api/v1/device_schedule_publish",
        "/api/v1/device_schedule_publish/{id}",
        "/api/v1/group_schedule_publish",
        "/api/v1/group_schedule_publish/{id}",
      ]),
    );
  });
});
