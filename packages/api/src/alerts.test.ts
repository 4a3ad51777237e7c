import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGroup } from "@iot/registry";
import { logsFixture, type LogsFixture } from "./logs-fixture.js";

describe.each(["1", "2"] as const)("alerts and group control logs in Form %s", (form) => {
  let { t, token, eveToken, viewerToken, admin, productID, meter, valve, eveDevice } = {} as LogsFixture;

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
    ({ t, token, eveToken, viewerToken, admin, productID, meter, valve, eveDevice } = await logsFixture(form));
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
});
