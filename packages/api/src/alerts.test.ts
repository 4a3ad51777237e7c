import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevice, createGroup, hashPassword, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

describe.each(["1", "2"] as const)("logs and alerts in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let viewerToken: string;
  let admin: Caller;
  let eve: Caller;
  let productID: string;
  let eveProductID: string;
  let meter: { id: number; deviceId: string };
  let valve: { id: number; deviceId: string };
  let eveDevice: { id: number; deviceId: string };

  const seedAlert = (tenantId: string, deviceIntId: number, alertName: string, extra: Record<string, unknown> = {}) =>
    t.store.db
      .insertInto("historyAlerts")
      .values({
        tenantId,
        deviceIntId,
        alertName,
        alertContent: "temperature above 30",
        alertDetail: JSON.stringify({ temperature: 31.5 }),
        alertSeverity: 1,
        alertTimes: 3,
        startTime: Date.UTC(2024, 0, 2, 3, 4, 5),
        endTime: null,
        createAt: Date.UTC(2024, 0, 2, 3, 4, 6),
        updateAt: null,
        ...extra,
      })
      .returning("id")
      .executeTakeFirstOrThrow();

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
    ] as const) {
      await t.store.db
        .insertInto("users")
        .values({
          tenantId,
          username,
          email: null,
          passwordHash: await hashPassword(`${username}-pass`),
          role,
          serviceAdmin: 0,
          enable: 1,
          createAt: Date.now(),
          updateAt: null,
        })
        .execute();
    }
    eveToken = await t.login("eve", "eve-pass");
    viewerToken = await t.login("viewer", "viewer-pass");
    eve = { userIntId: 2, username: "eve", tenantId: "tenant2", role: "admin", serviceAdmin: false };
    productID = (await t.call("POST", "/products", { productName: "Meter", cloudProtocol: 1, description: "p" }, token))
      .body.productID;
    eveProductID = (
      await t.call("POST", "/products", { productName: "Eve's", cloudProtocol: 1, description: "p" }, eveToken)
    ).body.productID;
    meter = await createDevice(t.store.db, admin, {
      productId: productID,
      deviceName: "Meter 100%",
      upLinkSystem: 1,
      authType: 1,
    });
    valve = await createDevice(t.store.db, admin, {
      productId: productID,
      deviceName: "valve",
      upLinkSystem: 1,
      authType: 1,
    });
    eveDevice = await createDevice(t.store.db, eve, {
      productId: eveProductID,
      deviceName: "eve meter",
      upLinkSystem: 1,
      authType: 1,
    });
  });
  afterAll(() => t.close());

  describe("historical alerts", () => {
    it("lists the tenant's alerts newest first with every field of the record", async () => {
      const a = await seedAlert(admin.tenantId, meter.id, "Too hot");
      const b = await seedAlert(admin.tenantId, valve.id, "Leak", {
        alertSeverity: 2,
        alertDetail: null,
        endTime: Date.UTC(2024, 0, 3),
      });
      await seedAlert("tenant2", eveDevice.id, "Eve's alert");
      const r = await t.call("GET", "/history_alerts", undefined, token);
      expect(r.status).toBe(200);
      expect(r.body.meta).toEqual({ count: 2, limit: 10, page: 1 });
      expect(r.body.items.map((x: { id: number }) => x.id)).toEqual([b.id, a.id]);
      expect(r.body.items[1]).toEqual({
        id: a.id,
        alertName: "Too hot",
        alertContent: "temperature above 30",
        alertDetail: { temperature: 31.5 },
        alertSeverity: 1,
        alertSeverityLabel: "Urgent",
        alertTimes: 3,
        deviceID: meter.deviceId,
        deviceName: "Meter 100%",
        startTime: "2024-01-02 03:04:05",
        endTime: null,
        createAt: "2024-01-02 03:04:06",
        updateAt: null,
      });
      expect(r.body.items[0]).toMatchObject({ alertDetail: {}, alertSeverity: 2, endTime: "2024-01-03 00:00:00" });
      const zh = await t.call("GET", "/history_alerts?_limit=1&_page=2", undefined, token, {
        "accept-language": "zh-CN",
      });
      expect(zh.body).toMatchObject({
        meta: { count: 2, limit: 1, page: 2 },
        items: [{ id: a.id, alertSeverityLabel: "紧急" }],
      });
      expect(
        (await t.call("GET", "/history_alerts", undefined, eveToken)).body.items.map(
          (x: { alertName: string }) => x.alertName,
        ),
      ).toEqual(["Eve's alert"]);
    });

    it("filters alerts by deviceID, deviceIntID and open or closed status, within the tenant", async () => {
      const closed = await seedAlert(admin.tenantId, meter.id, "Filter closed", { endTime: Date.UTC(2024, 0, 4) });
      const open = await seedAlert(admin.tenantId, meter.id, "Filter open");
      const elsewhere = await seedAlert(admin.tenantId, valve.id, "Filter valve");
      const theirs = await seedAlert("tenant2", eveDevice.id, "Filter eve");
      const ids = async (query: string, who = token) => {
        const r = await t.call("GET", `/history_alerts?_limit=1000&${query}`, undefined, who);
        expect(r.status, query).toBe(200);
        return r.body.items.map((x: { id: number }) => x.id).filter((id: number) => id >= closed.id);
      };
      expect(await ids(`deviceID=${meter.deviceId}`)).toEqual([open.id, closed.id]);
      expect(await ids(`deviceIntID=${valve.id}`)).toEqual([elsewhere.id]);
      expect(await ids("status=closed")).toEqual([closed.id]);
      expect(await ids(`deviceID=${meter.deviceId}&status=open`, viewerToken)).toEqual([open.id]);
      expect(await ids(`deviceID=${meter.deviceId}&deviceIntID=${valve.id}`)).toEqual([]);
      for (const query of [`deviceID=${eveDevice.deviceId}`, `deviceIntID=${eveDevice.id}`])
        expect(await ids(query), query).toEqual([]);
      expect(await ids(`deviceID=${eveDevice.deviceId}&status=open`, eveToken)).toEqual([theirs.id]);
      const r = await t.call("GET", `/history_alerts?deviceID=${meter.deviceId}&status=closed`, undefined, token);
      expect(r.body.meta.count).toBeGreaterThanOrEqual(1);
      expect(r.body.items.every((a: { endTime: string | null }) => a.endTime !== null)).toBe(true);
      expect(await t.call("GET", "/history_alerts?status=done&deviceIntID=x", undefined, token)).toMatchObject({
        status: 400,
        body: {
          errorCode: "PARAMETER_INVALID",
          errors: { status: "must be open or closed", deviceIntID: expect.any(String) },
        },
      });
    });

    it("deletes alerts with 204, ignoring another tenant's, and refuses a viewer", async () => {
      const mine = await seedAlert(admin.tenantId, meter.id, "Delete me");
      const eves = await seedAlert("tenant2", eveDevice.id, "Keep me");
      expect((await t.call("DELETE", `/history_alerts?ids=${mine.id}`, undefined, viewerToken)).status).toBe(403);
      expect((await t.call("GET", "/history_alerts", undefined, viewerToken)).status).toBe(200);
      const r = await t.call("DELETE", `/history_alerts?ids=${mine.id},${eves.id},999999`, undefined, token);
      expect(r.status).toBe(204);
      expect(r.body).toBeNull();
      const left = await t.store.db
        .selectFrom("historyAlerts")
        .select("id")
        .where("id", "in", [mine.id, eves.id])
        .execute();
      expect(left.map((x) => x.id)).toEqual([eves.id]);
      expect((await t.call("DELETE", "/history_alerts?ids=", undefined, token)).body.errorCode).toBe(
        "PARAMETER_INVALID",
      );
    });
  });

  describe("group control logs", () => {
    it("lists the commands sent to a group as group control log records, newest first", async () => {
      const g = await createGroup(t.store.db, admin, { productId: productID, groupName: "North" });
      const other = await createGroup(t.store.db, admin, { productId: productID, groupName: "South" });
      const log = (groupIntId: number | null, payload: string, publishStatus: number) =>
        t.store.db
          .insertInto("controlLogs")
          .values({
            tenantId: admin.tenantId,
            deviceIntId: meter.id,
            groupIntId,
            topic: null,
            payload,
            qos: 1,
            publishStatus,
            userIntId: 1,
            publishUser: "admin",
            expiresAt: null,
            createAt: Date.UTC(2024, 4, 5),
            updateAt: null,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
      const first = await log(g.id, '{"on":1}', 2);
      const second = await log(g.id, '{"on":0}', 1);
      await log(other.id, "elsewhere", 1);
      await log(null, "direct", 1);
      const r = await t.call("GET", `/groups/${g.id}/control_logs`, undefined, token);
      expect(r.status).toBe(200);
      expect(r.body.meta).toEqual({ count: 2, limit: 10, page: 1 });
      expect(r.body.items).toEqual([
        {
          id: second.id,
          groupID: g.groupId,
          groupName: "North",
          payload: '{"on":0}',
          publishStatus: 1,
          publishStatusLabel: "Issued",
          publishUser: "admin",
          userIntID: 1,
          createAt: "2024-05-05 00:00:00",
          updateAt: null,
        },
        {
          id: first.id,
          groupID: g.groupId,
          groupName: "North",
          payload: '{"on":1}',
          publishStatus: 2,
          publishStatusLabel: "Delivered",
          publishUser: "admin",
          userIntID: 1,
          createAt: "2024-05-05 00:00:00",
          updateAt: null,
        },
      ]);
      expect(
        (await t.call("GET", `/groups/${g.id}/control_logs?_limit=1`, undefined, viewerToken)).body.items.map(
          (x: { id: number }) => x.id,
        ),
      ).toEqual([second.id]);
      for (const path of [`/groups/${g.id}/control_logs`, "/groups/999999/control_logs"]) {
        const foreign = await t.call("GET", path, undefined, path.includes("999999") ? token : eveToken);
        expect(foreign.status, path).toBe(404);
        expect(foreign.body).toMatchObject({ errorCode: "DATA_NOT_FOUND", errors: { group: "not found" } });
      }
    });
  });

  describe("account-wide logs", () => {
    beforeAll(async () => {
      const db = t.store.db;
      const at = Date.UTC(2024, 5, 6, 7, 8, 9);
      for (const [d, name, ip, status] of [
        [meter, "Meter 100%", "10.0.0.1", 1],
        [valve, "valve", "192.168.1.9", 2],
      ] as const) {
        await db
          .insertInto("connectLogs")
          .values({
            tenantId: admin.tenantId,
            deviceIntId: d.id,
            deviceId: d.deviceId,
            deviceName: name,
            connectStatus: status,
            ip,
            keepAlive: 60,
            sessionId: null,
            reason: null,
            createAt: at,
            updateAt: null,
          })
          .execute();
        await db
          .insertInto("deviceEvents")
          .values({
            tenantId: admin.tenantId,
            deviceIntId: d.id,
            gatewayIntId: null,
            topic: `data/${name}`,
            payload: new TextEncoder().encode(`{"from":"${name}"}`),
            ip,
            qos: 1,
            msgTime: at,
            createAt: at,
            msgKey: `k-${form}-${d.id}`,
          })
          .execute();
        await db
          .insertInto("controlLogs")
          .values({
            tenantId: admin.tenantId,
            deviceIntId: d.id,
            groupIntId: null,
            topic: "inbox",
            payload: `to ${name}`,
            qos: 1,
            publishStatus: 3,
            userIntId: 1,
            publishUser: "admin",
            expiresAt: null,
            createAt: at,
            updateAt: null,
          })
          .execute();
      }
      await db
        .insertInto("connectLogs")
        .values({
          tenantId: "tenant2",
          deviceIntId: eveDevice.id,
          deviceId: eveDevice.deviceId,
          deviceName: "eve meter",
          connectStatus: 1,
          ip: "10.0.0.1",
          keepAlive: 60,
          sessionId: null,
          reason: null,
          createAt: at,
          updateAt: null,
        })
        .execute();
    });
    const names = (body: { items: Array<{ deviceName: string }> }) => body.items.map((x) => x.deviceName).sort();

    it("filters connect logs by deviceName_like, deviceID_like and IP_like, in the form's record shape", async () => {
      expect(
        names((await t.call("GET", "/device_connect_logs?deviceName_like=100%25", undefined, token)).body),
      ).toEqual(["Meter 100%"]);
      expect(
        names(
          (
            await t.call(
              "GET",
              `/device_connect_logs?deviceID_like=${valve.deviceId.slice(2, 12).toUpperCase()}`,
              undefined,
              token,
            )
          ).body,
        ),
      ).toEqual(["valve"]);
      const byIp = (await t.call("GET", "/device_connect_logs?IP_like=192.168", undefined, token)).body;
      expect(byIp.meta.count).toBe(1);
      const status =
        form === "1"
          ? { connectStatus: 2, connectStatusLabel: "Authentication failed" }
          : { deviceStatus: "2", deviceStatusLabel: "Authentication failed" };
      expect(byIp.items[0]).toEqual({
        id: expect.any(Number),
        IP: "192.168.1.9",
        createAt: "2024-06-06 07:08:09",
        deviceID: valve.deviceId,
        deviceName: "valve",
        keepAlive: 60,
        tenantID: admin.tenantId,
        updateAt: null,
        ...status,
      });
      expect((await t.call("GET", "/device_connect_logs?IP_like=10.0.0.1", undefined, token)).body.meta.count).toBe(1);
    });

    it("filters uplink messages by deviceName_like, deviceID_like and topic_like; Form 2 adds productName and drops msgTime", async () => {
      expect(names((await t.call("GET", "/device_events?deviceName_like=VALVE", undefined, token)).body)).toEqual([
        "valve",
      ]);
      expect(
        names((await t.call("GET", `/device_events?deviceID_like=${meter.deviceId}`, undefined, token)).body),
      ).toEqual(["Meter 100%"]);
      const byTopic = (await t.call("GET", "/device_events?topic_like=data/meter", undefined, token)).body;
      expect(byTopic.meta.count).toBe(1);
      const timing = form === "1" ? { msgTime: "2024-06-06 07:08:09" } : { productName: "Meter" };
      expect(byTopic.items[0]).toEqual({
        id: expect.any(Number),
        IP: "10.0.0.1",
        createAt: "2024-06-06 07:08:09",
        deviceID: meter.deviceId,
        deviceName: "Meter 100%",
        payload: '{"from":"Meter 100%"}',
        topic: "data/Meter 100%",
        updateAt: null,
        ...timing,
      });
    });

    it("filters device control logs by deviceName_like and deviceID_like", async () => {
      const r = (await t.call("GET", "/device_control_logs?deviceName_like=valve", undefined, token)).body;
      expect(r.items).toEqual([
        {
          id: expect.any(Number),
          deviceIntID: valve.id,
          deviceName: "valve",
          payload: "to valve",
          topic: "inbox",
          publishStatus: 3,
          publishStatusLabel: "No acknowledgement needed",
          publishUser: "admin",
          publishResult: null,
          userIntID: 1,
          createAt: "2024-06-06 07:08:09",
          updateAt: null,
        },
      ]);
      expect(
        (await t.call("GET", `/device_control_logs?deviceID_like=${meter.deviceId}`, undefined, token)).body.items.map(
          (x: { deviceIntID: number }) => x.deviceIntID,
        ),
      ).toContain(meter.id);
      expect(
        (
          await t.call("GET", `/device_control_logs?deviceID_like=${meter.deviceId}`, undefined, token)
        ).body.items.every((x: { deviceIntID: number }) => x.deviceIntID === meter.id),
      ).toBe(true);
    });

    it("shows another tenant none of these logs", async () => {
      for (const path of ["/device_connect_logs", "/device_events", "/device_control_logs"]) {
        const text = JSON.stringify((await t.call("GET", path, undefined, eveToken)).body);
        expect(text, path).not.toContain(meter.deviceId);
        expect(text, path).not.toContain(valve.deviceId);
      }
    });
  });
});
