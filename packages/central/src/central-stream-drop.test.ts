import { quietFor } from "@iot/config/testing";
import { describe, expect, it } from "vitest";
import { DownlinkResultSchema, DownlinkStatus, Protocol, create } from "@iot/proto";
import { centralUnderTest } from "./test-central.js";

const { api, openStream, newSession } = centralUnderTest();

describe("central node over gRPC", () => {
  describe("when an adapter's stream drops", () => {
    /** A new device with a session on adapter `instanceId`. */
    async function deviceOnAdapter(instanceId: string, name: string) {
      const { d, opened } = await newSession(name, "10.1.1.1");
      const s = hello(instanceId, []);
      await s.next("helloAck");
      s.send({ case: "sessionOpened", value: opened });
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      s.call.cancel();
      return { d, opened };
    }
    const statuses = async (id: number) =>
      (await api("GET", `/devices/${id}/connect_logs`)).body.items.map(
        (l: { connectStatus: number }) => l.connectStatus,
      );
    /** A Connect stream of adapter `instanceId` that said Hello listing `sessions`. */
    const hello = (instanceId: string, sessions: unknown[], downlinkBatches = false) => {
      const s = openStream();
      s.send({
        case: "hello",
        value: {
          $typeName: "iot.registry.v1.Hello",
          instanceId,
          protocol: Protocol.MQTT,
          version: "t",
          sessions: sessions as never,
          downlinkBatches,
        },
      });
      return s;
    };

    /** Two devices on adapter `instanceId` (its Hello says whether it takes DownlinkBatch) get a group command. */
    async function groupCommandOn(instanceId: string, downlinkBatches: boolean) {
      const a = await deviceOnAdapter(instanceId, `${instanceId}-a`);
      const b = await deviceOnAdapter(instanceId, `${instanceId}-b`);
      const s = hello(instanceId, [a.opened, b.opened], downlinkBatches);
      const ack = await s.next("helloAck");
      const product = (await api("GET", "/products")).body.items[0];
      const group = (await api("POST", "/groups", { productID: product.productID, groupName: instanceId })).body;
      expect((await api("POST", `/groups/${group.id}/devices`, { ids: [a.d.id, b.d.id] })).status).toBeLessThan(300);
      const pub = await api("POST", "/group_publish", { groupID: group.groupID, payload: "all", needAck: 1 });
      expect(pub.status).toBe(201);
      return { s, ack, devices: [a.d.id, b.d.id].sort() };
    }

    it("sends a group command's downlinks as one DownlinkBatch to an adapter whose Hello takes them, and settles the DownlinkResultBatch it answers", async () => {
      const { s, ack, devices } = await groupCommandOn("mqtt-batch-1", true);
      expect(ack.downlinkResultBatches).toBe(true);
      const batch = await s.next("downlinkBatch");
      expect(batch.downlinks.map((d) => Number(d.deviceIntId)).sort()).toEqual(devices);
      expect(batch.downlinks.map((d) => Buffer.from(d.payload).toString())).toEqual(["all", "all"]);
      s.send({
        case: "downlinkResultBatch",
        value: {
          $typeName: "iot.registry.v1.DownlinkResultBatch",
          results: batch.downlinks.map((d) =>
            create(DownlinkResultSchema, { downlinkId: d.id, status: DownlinkStatus.DELIVERED }),
          ),
        },
      });
      for (const id of devices)
        await expect
          .poll(async () => (await api("GET", `/devices/${id}/control_logs`)).body.items[0].publishStatus)
          .toBe(2);
      s.call.end();
    });

    it("sends a group command's downlinks one Downlink each to an adapter whose Hello does not take batches", async () => {
      const { s, devices } = await groupCommandOn("mqtt-batch-2", false);
      const sent = [await s.next("downlink"), await s.next("downlink")];
      expect(sent.map((d) => Number(d.deviceIntId)).sort()).toEqual(devices);
      await expect(s.next("downlinkBatch", 300)).rejects.toThrow(/no downlinkBatch/);
      s.call.end();
    });

    it("keeps a device online without new logs when the adapter comes back listing its session", async () => {
      const { d, opened } = await deviceOnAdapter("mqtt-back-1", "kept");
      const s = hello("mqtt-back-1", [opened]);
      await s.next("helloAck");
      await quietFor(1500, "past the grace for the adapter's sessions");
      expect((await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      expect(await statuses(d.id)).toEqual([1]);
      s.call.end();
    });

    it("sends the tenant's uplink rate again to an adapter that comes back, as it may have changed meanwhile", async () => {
      const { opened } = await deviceOnAdapter("mqtt-rate-1", "rated");
      const tenant = (await api("GET", "/tenants")).body.items.find(
        (x: { tenantID: string }) => x.tenantID === opened.tenantId,
      );
      expect((await api("PUT", `/tenants/${tenant.id}`, { maxUplinkRate: 25 })).status).toBe(200);
      const s = hello("mqtt-rate-1", [opened]);
      await s.next("helloAck");
      expect(await s.next("tenantLimits")).toMatchObject({ tenantId: opened.tenantId, maxUplinkRate: 25 });
      // A live adapter gets a change pushed at once.
      expect((await api("PUT", `/tenants/${tenant.id}`, { maxUplinkRate: 0 })).status).toBe(200);
      expect(await s.next("tenantLimits")).toMatchObject({ tenantId: opened.tenantId, maxUplinkRate: 0 });
      s.call.end();
    });

    it("stores a device sleeping while the adapter says so, also when it comes back listing the session asleep", async () => {
      const { d, opened } = await deviceOnAdapter("lwm2m-q-1", "queue mode");
      const s = hello("lwm2m-q-1", [opened]);
      await s.next("helloAck");
      const state = (sleeping: boolean) => ({
        $typeName: "iot.registry.v1.SessionState" as const,
        sessionId: opened.sessionId,
        deviceIntId: opened.deviceIntId,
        tenantId: opened.tenantId,
        sleeping,
      });
      s.send({ case: "sessionState", value: state(true) });
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(2);
      s.send({ case: "sessionState", value: state(false) });
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      s.call.cancel();
      const back = hello("lwm2m-q-1", [{ ...opened, sleeping: true }]);
      await back.next("helloAck");
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(2);
      expect(await statuses(d.id)).toEqual([1]);
      back.call.end();
    });

    it("marks a device offline when the adapter comes back without its session", async () => {
      const { d } = await deviceOnAdapter("mqtt-back-2", "gone");
      const s = hello("mqtt-back-2", []);
      await s.next("helloAck");
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(0);
      expect(await statuses(d.id)).toEqual([0, 1]);
      s.call.end();
    });

    /** An uplink of a re-announced session, as an adapter replays it. */
    const replayed = (opened: { sessionId: string; deviceIntId: bigint; tenantId: string }, seq: number) => ({
      case: "uplink" as const,
      value: {
        $typeName: "iot.registry.v1.Uplink" as const,
        seq: BigInt(seq),
        sessionId: opened.sessionId,
        deviceIntId: opened.deviceIntId,
        topic: "telemetry",
        payload: Buffer.from("while away"),
        clientIp: "10.1.1.1",
        receivedAtMs: BigInt(Date.now()),
        qos: 1,
        tenantId: opened.tenantId,
        gatewayDeviceIntId: 0n,
        metadata: "",
        resendId: "",
        maybeResend: false,
        retain: false,
      },
    });

    it("kicks a re-announced session whose device was blocked while the adapter was away, storing none of its uplinks", async () => {
      const { d, opened } = await deviceOnAdapter("mqtt-back-3", "blocked-away");
      expect((await api("PUT", `/devices/${d.id}`, { ...d, blocked: 1 })).status).toBe(200);
      const s = hello("mqtt-back-3", [opened]);
      await s.next("helloAck");
      const kick = await s.next("kick");
      expect(kick).toMatchObject({ deviceIntId: BigInt(d.id), reason: "device blocked" });
      s.send(replayed(opened, 1));
      const ack = await s.next("uplinkAck");
      expect(ack.seqs).toEqual([]);
      expect(ack.rejected).toEqual([expect.objectContaining({ seq: 1n, reason: "session revoked: device blocked" })]);
      expect((await api("GET", `/devices/${d.id}/events`)).body.meta.count).toBe(0);
      s.call.end();
    });

    it("kicks a re-announced session whose token changed while the adapter was away, and keeps an unchanged one", async () => {
      const changed = await deviceOnAdapter("mqtt-back-4", "rekeyed");
      const unchanged = await deviceOnAdapter("mqtt-back-4", "untouched");
      await api("PUT", `/devices/${changed.d.id}`, { ...changed.d, token: "a-brand-new-token" });
      const s = hello("mqtt-back-4", [changed.opened, unchanged.opened]);
      await s.next("helloAck");
      expect(await s.next("kick")).toMatchObject({
        deviceIntId: BigInt(changed.d.id),
        reason: "device credentials changed",
      });
      s.send(replayed(unchanged.opened, 1));
      expect((await s.next("uplinkAck")).seqs).toEqual([1n]);
      await expect.poll(async () => (await api("GET", `/devices/${unchanged.d.id}/events`)).body.meta.count).toBe(1);
      await expect.poll(async () => (await api("GET", `/devices/${unchanged.d.id}`)).body.deviceStatus).toBe(1);
      s.call.end();
    });

    it("pushes each re-announced session its device's current policies and proxy subscriptions", async () => {
      const ruled = await deviceOnAdapter("mqtt-back-6", "ruled-away");
      const subscribed = await deviceOnAdapter("mqtt-back-6", "subscribed-away");
      const rule = (await api("POST", "/policies", { name: "away-deny", topic: "secret/#", access: 3, allow: 0 })).body;
      expect((await api("POST", `/devices/${ruled.d.id}/policies`, { ids: [rule.id] })).status).toBe(201);
      const sub = { topic: "config/#", qos: 1 };
      expect((await api("POST", `/devices/${subscribed.d.id}/subscriptions`, sub)).status).toBe(201);
      const s = hello("mqtt-back-6", [ruled.opened, subscribed.opened]);
      await s.next("helloAck");
      const policies = new Map<bigint, string[]>();
      const subscriptions = new Map<bigint, string[]>();
      for (let i = 0; i < 2; i++) {
        const p = await s.next("policyUpdate");
        policies.set(
          p.deviceIntId,
          p.policies.map((r) => r.topic),
        );
        const u = await s.next("subscriptionUpdate");
        subscriptions.set(
          u.deviceIntId,
          u.subscriptions.map((x) => x.topic),
        );
      }
      expect(policies).toEqual(
        new Map([
          [BigInt(ruled.d.id), ["secret/#"]],
          [BigInt(subscribed.d.id), []],
        ]),
      );
      expect(subscriptions).toEqual(
        new Map([
          [BigInt(ruled.d.id), []],
          [BigInt(subscribed.d.id), ["config/#"]],
        ]),
      );
      s.call.end();
    });

    it("takes a device offline when a new stream of the same adapter instance no longer lists its session", async () => {
      const { d, opened } = await deviceOnAdapter("mqtt-back-5", "replaced");
      // The first stream is still attached when the instance's next one says Hello without the session.
      const first = hello("mqtt-back-5", [opened]);
      await first.next("helloAck");
      const second = hello("mqtt-back-5", []);
      await second.next("helloAck");
      await expect.poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(0);
      expect(await statuses(d.id)).toEqual([0, 1]);
      first.call.end();
      second.call.end();
    });

    it("marks a device offline when the adapter does not come back within the grace", async () => {
      const { d } = await deviceOnAdapter("mqtt-never-back", "orphan");
      expect((await api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
      await expect
        .poll(async () => (await api("GET", `/devices/${d.id}`)).body.deviceStatus, { timeout: 4000 })
        .toBe(0);
      expect(await statuses(d.id)).toEqual([0, 1]);
    });
  });
});
