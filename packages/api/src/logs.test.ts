import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logsFixture, type LogsFixture } from "./logs-fixture.js";

describe.each(["1", "2"] as const)("device logs in Form %s", (form) => {
  let { t, token, eveToken, admin, meter, valve, eveDevice } = {} as LogsFixture;

  beforeAll(async () => {
    ({ t, token, eveToken, admin, meter, valve, eveDevice } = await logsFixture(form));
  });
  afterAll(() => t.close());

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
