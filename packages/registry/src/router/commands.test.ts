import { CompiledQuery } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { engines, type EngineUnderTest } from "../store/test-engines.js";
import { queryCounter } from "../store/test-query-counter.js";
import { twoTenants } from "../domain/test-tenants.js";
import { createDevice } from "../domain/devices.js";
import { addGroupDevices, createGroup, getGroup } from "../domain/groups.js";
import { listControlLogs, listGroupControlLogs } from "../domain/logs.js";
import { createProduct } from "../domain/products.js";
import { createDataPoint } from "../domain/data-points.js";
import { createDataStream } from "../domain/data-streams.js";
import { RegistryError } from "../errors.js";
import { getTask, TASK_STATUS } from "../domain/tasks.js";
import { SessionTable } from "../sessions/session-table.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { CommandRouter, PUBLISH_STATUS, pendingCommandsQuery } from "./commands.js";
import { readEvents } from "../northbound/events.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const TTL = 60_000;

async function setup(engine: EngineUnderTest) {
  const { db, caller, other } = await twoTenants(engine);
  const sessions = new SessionTable();
  const router = new CommandRouter(db, sessions, TTL, { inFlightGraceMs: 10_000 });
  const product = await createProduct(db, caller, { productName: "Valves", cloudProtocol: 1 });
  const device = (deviceName: string) =>
    createDevice(db, caller, {
      productId: product.productId,
      deviceName,
      deviceId: deviceName,
      upLinkSystem: 1,
      authType: 1,
    });
  const statusOf = async (id: number) =>
    (await db.selectFrom("controlLogs").select("publishStatus").where("id", "=", id).executeTakeFirstOrThrow())
      .publishStatus;
  return { db, caller, other, sessions, router, product, device, statusOf };
}

describe.each(engines)("device commands on $name", (engine) => {
  it("sends the queued commands of several devices whose sessions opened together, oldest first", async () => {
    const { caller, sessions, router, device } = await setup(engine);
    const [a, b, idle] = [await device("m1"), await device("m2"), await device("m3")];
    await router.publish(caller, { deviceIntId: a.id, payload: "a1", qos: 1 }, 1_000);
    await router.publish(caller, { deviceIntId: b.id, payload: "b1", qos: 1 }, 1_000);
    await router.publish(caller, { deviceIntId: a.id, payload: "a2", qos: 1 }, 1_000);
    await router.publish(caller, { deviceIntId: idle.id, payload: "not yet", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(a.id);
    adapter.open(b.id);
    expect(await router.deliverPending([a.id, b.id], 2_000)).toBe(3);
    expect(adapter.sent.map((c) => c.payload)).toEqual(["a1", "b1", "a2"]);
  });

  it("sends the queued commands of more devices than one IN list holds, every one once and oldest first", async () => {
    const { caller, sessions, router, device } = await setup(engine);
    const devices = [];
    for (let i = 0; i < 530; i++) devices.push(await device(`many-${i}`));
    // Published newest device first, so the oldest command is the last device's.
    for (const d of [...devices].reverse())
      await router.publish(caller, { deviceIntId: d.id, payload: d.deviceId, qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    for (const d of devices) adapter.open(d.id);
    expect(
      await router.deliverPending(
        devices.map((d) => d.id),
        2_000,
      ),
    ).toBe(530);
    expect(adapter.sent.map((c) => c.payload)).toEqual([...devices].reverse().map((d) => d.deviceId));
  });

  it("builds its lookup of queued commands once, whatever the number of devices whose sessions opened", async () => {
    const { db, sessions } = await setup(engine);
    const built = queryCounter();
    const router = new CommandRouter(db.withPlugin(built.plugin), sessions, TTL, { inFlightGraceMs: 10_000 });
    // Lists of 1 to 8 devices share queryIn's shortest IN list: one SQL text, built once. kysely built it each time.
    for (let n = 1; n <= 8; n++)
      await router.deliverPending(
        Array.from({ length: n }, (_, i) => 1_000 + i),
        2_000,
      );
    expect(built.count).toBe(1);
  });

  it("keeps a command for an offline device issued and sends it once when a session opens", async () => {
    const { caller, sessions, router, device, statusOf } = await setup(engine);
    const d = await device("v1");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "open", qos: 1 }, 1_000);
    expect(r.publishStatus).toBe(PUBLISH_STATUS.issued);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    expect(adapter.sent).toEqual([
      { id: r.id, deviceIntId: d.id, topic: "inbox", payload: "open", qos: 1, expiresAt: 1_000 + TTL },
    ]);
    // Announced again on the same stream: not sent twice.
    expect(await router.deliverPending([d.id], 2_500)).toBe(0);
    expect(adapter.sent).toHaveLength(1);
    await router.settle(r.id, PUBLISH_STATUS.delivered);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.delivered);
  });

  it("sends in order of issue, and again down a new stream of a reconnected adapter while still unanswered", async () => {
    const { caller, sessions, router, device } = await setup(engine);
    const d = await device("v2");
    const a = await router.publish(caller, { deviceIntId: d.id, payload: "one", qos: 1 });
    const b = await router.publish(caller, { deviceIntId: d.id, topic: "cfg/rate", payload: "two", qos: 0 });
    const first = fakeAdapterLink(sessions);
    first.open(d.id);
    await router.deliverPending([d.id]);
    expect(first.sent.map((s) => [s.id, s.topic, s.qos])).toEqual([
      [a.id, "inbox", 1],
      [b.id, "cfg/rate", 0],
    ]);
    sessions.detach(first.link);
    const second = fakeAdapterLink(sessions); // same instance, new stream: its answers of the old one may be lost
    second.open(d.id);
    expect(await router.deliverPending([d.id])).toBe(2);
    expect(second.sent.map((s) => s.id)).toEqual([a.id, b.id]);
  });

  it("sends at once to a connected device and does not send it again when the session is re-announced", async () => {
    const { caller, sessions, router, device } = await setup(engine);
    const d = await device("v3");
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "now", qos: 1 });
    expect(adapter.sent.map((s) => s.id)).toEqual([r.id]);
    expect(await router.deliverPending([d.id])).toBe(0);
    expect(adapter.sent).toHaveLength(1);
  });

  it("keeps a command its adapter gave back undelivered issued, with no result event, and sends it at the next session", async () => {
    const { db, caller, sessions, router, device, statusOf } = await setup(engine);
    const d = await device("q1");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "later", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    // The device left before it subscribed to the command's topic: its session closes, the adapter gives it back.
    sessions.close("mqtt-1", adapter.sessionIds.at(-1)!);
    await router.settle(r.id, PUBLISH_STATUS.issued, "device disconnected before it subscribed", 3_000);
    await router.settle(r.id, PUBLISH_STATUS.delivered, "", 3_000); // a report that crossed it still settles it
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.delivered);
    const q = await router.publish(caller, { deviceIntId: d.id, payload: "again", qos: 1 }, 4_000);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 5_000)).toBe(1);
    sessions.close("mqtt-1", adapter.sessionIds.at(-1)!);
    await router.settle(q.id, PUBLISH_STATUS.issued, "device disconnected before it subscribed", 6_000);
    expect(await statusOf(q.id)).toBe(PUBLISH_STATUS.issued);
    // Back on the same adapter stream: sent again, as it is no longer with the adapter.
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 7_000)).toBe(1);
    expect(adapter.sent.map((c) => c.id)).toEqual([r.id, q.id, q.id]);
    await router.stop();
    const events = await readEvents(db, { afterId: 0, limit: 10, types: ["command_result"] });
    expect(events.map((e) => [e.data.controlLogID, e.data.status])).toEqual([[r.id, "delivered"]]);
  });

  it("sends a command given back undelivered at once to the device's session that replaced the one it went to", async () => {
    const { caller, sessions, router, device, statusOf } = await setup(engine);
    const d = await device("q2");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "takeover", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    // A new connection of the device took over before the adapter gave the command back from the old one.
    sessions.close("mqtt-1", adapter.sessionIds.at(-1)!);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_500)).toBe(0); // still with the adapter
    await router.settle(r.id, PUBLISH_STATUS.issued, "device disconnected before it subscribed", 3_000);
    expect(adapter.sent.map((c) => c.id)).toEqual([r.id, r.id]);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.issued);
  });

  it("lets the sweep fail a command given back undelivered once its TTL ran out, and never sends it again", async () => {
    const { caller, sessions, router, device, statusOf } = await setup(engine);
    const d = await device("q3");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "too late", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 2_000)).toBe(1);
    await router.settle(r.id, PUBLISH_STATUS.issued, 'expired before the device subscribed to "inbox"', 1_000 + TTL);
    expect(adapter.sent).toHaveLength(1);
    expect(await router.expire(1_000 + TTL)).toBe(1);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.failed);
  });

  it("records commands issued together in one batch, each under its own id, and sends each device its own in order", async () => {
    const { db, caller, sessions, router, device } = await setup(engine);
    const [a, b] = [await device("b1"), await device("b2")];
    const adapter = fakeAdapterLink(sessions);
    adapter.open(a.id);
    adapter.open(b.id);
    const payloads = ["a1", "b1", "a2", "a3", "b2"];
    const issued = await Promise.all(
      payloads.map((payload) =>
        router.publish(caller, { deviceIntId: payload.startsWith("a") ? a.id : b.id, payload, qos: 1 }),
      ),
    );
    expect(new Set(issued.map((r) => r.id)).size).toBe(5);
    const stored = await db.selectFrom("controlLogs").select(["id", "deviceIntId", "payload"]).execute();
    for (const [i, r] of issued.entries())
      expect(stored.find((l) => l.id === r.id)).toMatchObject({
        payload: payloads[i],
        deviceIntId: payloads[i]!.startsWith("a") ? a.id : b.id,
      });
    // Concurrent calls may be recorded in any order (their device lookups race on a pool); each device's commands
    // go out in the order of their logs, each with its own payload.
    const sent = adapter.sent.map((c) => [c.id, c.payload]);
    expect([...sent].sort((x, y) => Number(x[0]) - Number(y[0]))).toEqual(
      issued.map((r, i) => [r.id, payloads[i]]).sort((x, y) => Number(x[0]) - Number(y[0])),
    );
    for (const prefix of ["a", "b"]) {
      const ids = sent.filter(([, p]) => String(p).startsWith(prefix)).map(([id]) => Number(id));
      expect(ids).toEqual([...ids].sort((x, y) => x - y));
    }
  });

  it("finds the device by its deviceID alone, and refuses a deviceIntId that is another device", async () => {
    const { caller, sessions, router, device } = await setup(engine);
    const [d, other] = [await device("n1"), await device("n2")];
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    await router.publish(caller, { deviceId: "n1", payload: "by name", qos: 1 });
    expect(adapter.sent.map((c) => [c.deviceIntId, c.payload])).toEqual([[d.id, "by name"]]);
    await expect(
      router.publish(caller, { deviceIntId: other.id, deviceId: "n1", payload: "x", qos: 1 }),
    ).rejects.toMatchObject({ code: "FORM_INVALID" });
    await expect(router.publish(caller, { deviceId: "nobody", payload: "x", qos: 1 })).rejects.toMatchObject({
      code: "DATA_NOT_FOUND",
    });
  });

  it("refuses a command for another tenant's device and records nothing", async () => {
    const { db, other, router, device } = await setup(engine);
    const d = await device("v8");
    await expect(router.publish(other, { deviceIntId: d.id, payload: "x", qos: 1 })).rejects.toMatchObject({
      code: "DATA_NOT_FOUND",
    });
    expect(await db.selectFrom("controlLogs").select("id").where("deviceIntId", "=", d.id).execute()).toEqual([]);
  });

  it("changes only an issued command when an adapter reports on it", async () => {
    const { caller, router, device, statusOf } = await setup(engine);
    const d = await device("v4");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "x", qos: 0 });
    await router.settle(r.id, PUBLISH_STATUS.sent);
    await router.settle(r.id, PUBLISH_STATUS.failed);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.sent);
  });

  it("reports each settled or expired command once as a command_result event of its tenant and device", async () => {
    const { db, caller, router, device } = await setup(engine);
    const d = await device("v4e");
    const sent = await router.publish(caller, { deviceIntId: d.id, payload: "x", qos: 0 }, 1_000);
    const late = await router.publish(caller, { deviceIntId: d.id, payload: "y", qos: 1 }, 1_000);
    await router.settle(sent.id, PUBLISH_STATUS.sent, "ok");
    await router.settle(sent.id, PUBLISH_STATUS.failed);
    await router.expire(1_000 + TTL);
    const events = await readEvents(db, { afterId: 0, limit: 10, types: ["command_result"] });
    expect(events.map((e) => [e.tenantID, e.deviceID, e.data.controlLogID, e.data.status])).toEqual([
      [caller.tenantId, "v4e", sent.id, "sent"],
      [caller.tenantId, "v4e", late.id, "failed"],
    ]);
    expect(events[0]!.data.result).toBe("ok");
  });

  it("fails a command whose TTL ran out while the device was away, and never sends it later", async () => {
    const { caller, sessions, router, device, statusOf } = await setup(engine);
    const d = await device("v5");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "late", qos: 1 }, 1_000);
    expect(await router.expire(1_000 + TTL - 1)).toBe(0);
    expect(await router.expire(1_000 + TTL)).toBe(1);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.failed);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 1_000 + TTL + 5)).toBe(0);
    expect(adapter.sent).toEqual([]);
  });

  it("does not deliver a queued command that expired before the session opened, even before the sweep marked it", async () => {
    const { caller, sessions, router, device, statusOf } = await setup(engine);
    const d = await device("v6");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "stale", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    expect(await router.deliverPending([d.id], 1_000 + TTL)).toBe(0);
    expect(adapter.sent).toEqual([]);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.issued);
  });

  it("lets an adapter answer a command it holds past its TTL, within the in-flight grace", async () => {
    const { caller, sessions, router, device, statusOf } = await setup(engine);
    const d = await device("v7");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: "slow", qos: 1 }, 1_000);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(d.id);
    const handedOver = 1_000 + TTL - 100;
    expect(await router.deliverPending([d.id], handedOver)).toBe(1);
    expect(await router.expire(1_000 + TTL)).toBe(0); // the adapter may still report within the 10 s grace
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.issued);
    expect(await router.expire(handedOver + 10_000)).toBe(1);
    expect(await statusOf(r.id)).toBe(PUBLISH_STATUS.failed);
  });

  it("sends a queued command for a device behind a gateway through the gateway's session when the gateway connects", async () => {
    const { db, caller, sessions, router, product } = await setup(engine);
    const gw = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "gw",
      deviceType: 2,
      authType: 1,
    });
    const child = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "c",
      deviceId: "child-9",
      upLinkSystem: 2,
      gateway: gw.id,
      authType: 1,
    });
    const r = await router.publish(caller, { deviceIntId: child.id, topic: "relay", payload: "on", qos: 1 });
    const adapter = fakeAdapterLink(sessions);
    adapter.open(gw.id);
    expect(await router.deliverPending([gw.id])).toBe(1);
    expect(adapter.sent).toEqual([
      expect.objectContaining({ id: r.id, deviceIntId: gw.id, topic: "devices/child-9/relay", payload: "on" }),
    ]);
  });
});

describe.each(engines)("group commands on $name", (engine) => {
  async function groupSetup(members: number) {
    const s = await setup(engine);
    const group = await createGroup(s.db, s.caller, { productId: s.product.productId, groupName: "All" });
    const devices = [];
    for (let i = 0; i < members; i++) devices.push(await s.device(`g${i}`));
    await addGroupDevices(
      s.db,
      s.caller,
      group.id,
      devices.map((d) => d.id),
    );
    const memberLogs = (taskIntId: number) =>
      s.db
        .selectFrom("controlLogs")
        .select(["id", "deviceIntId", "publishStatus", "qos", "topic"])
        .where("taskIntId", "=", taskIntId)
        .where("deviceIntId", "is not", null)
        .orderBy("id")
        .execute();
    const groupLog = (taskIntId: number) =>
      s.db
        .selectFrom("controlLogs")
        .selectAll()
        .where("taskIntId", "=", taskIntId)
        .where("deviceIntId", "is", null)
        .executeTakeFirstOrThrow();
    return { ...s, group: await getGroup(s.db, s.caller, group.id), devices, memberLogs, groupLog };
  }

  it("needAck 0: sends once at QoS 0 to the connected members, fails the others at once, and sums up when the sends are reported", async () => {
    const { db, caller, sessions, router, group, devices, memberLogs, groupLog } = await groupSetup(3);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(devices[0]!.id);
    adapter.open(devices[2]!.id);
    const { task, controlLogId } = await router.publishToGroup(caller, { group, payload: "all-off", needAck: 0 });
    expect(adapter.sent.map((s) => [s.deviceIntId, s.qos, s.topic, s.payload])).toEqual([
      [devices[0]!.id, 0, "inbox", "all-off"],
      [devices[2]!.id, 0, "inbox", "all-off"],
    ]);
    expect((await memberLogs(task.id)).map((l) => l.publishStatus)).toEqual([1, 0, 1]);
    expect(task).toMatchObject({
      kind: "group_publish",
      status: TASK_STATUS.running,
      progress: 33,
      message: "waiting for 2 of 3 devices",
    });
    expect(JSON.parse(task.result!)).toEqual({ total: 3, success: 0, failed: 1, pending: 2 });
    expect(await groupLog(task.id)).toMatchObject({
      id: controlLogId,
      groupIntId: group.id,
      payload: "all-off",
      qos: 0,
      publishStatus: 1,
      publishUser: "root",
    });

    for (const s of adapter.sent) await router.settle(s.id, PUBLISH_STATUS.sent);
    const done = await getTask(db, caller, task.taskId);
    expect(done).toMatchObject({ status: TASK_STATUS.failed, progress: 100, message: "1 of 3 devices failed" });
    expect(JSON.parse(done.result!)).toEqual({ total: 3, success: 2, failed: 1, pending: 0 });
    expect((await memberLogs(task.id)).map((l) => l.publishStatus)).toEqual([3, 0, 3]);
    expect((await groupLog(task.id)).publishStatus).toBe(PUBLISH_STATUS.failed);
  });

  it("needAck 0: reports each member failed at once as a command_result event of its device", async () => {
    const { db, caller, sessions, router, group, devices } = await groupSetup(3);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(devices[1]!.id);
    await router.publishToGroup(caller, { group, payload: "all-off", needAck: 0 });
    const events = await readEvents(db, { afterId: 0, limit: 10, types: ["command_result"] });
    expect(events.map((e) => [e.tenantID, e.deviceID, e.data.status, e.data.result])).toEqual([
      [caller.tenantId, devices[0]!.deviceId, "failed", "device not connected"],
      [caller.tenantId, devices[2]!.deviceId, "failed", "device not connected"],
    ]);
  });

  it("needAck 1: tracks each member at QoS 1, queues the offline one, and succeeds once every member acknowledged", async () => {
    const { db, caller, sessions, router, group, devices, memberLogs, groupLog } = await groupSetup(2);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(devices[0]!.id);
    const { task } = await router.publishToGroup(caller, { group, payload: "reboot", needAck: 1 });
    expect(adapter.sent.map((s) => [s.deviceIntId, s.qos])).toEqual([[devices[0]!.id, 1]]);
    await router.settle(adapter.sent[0]!.id, PUBLISH_STATUS.delivered);
    let t = await getTask(db, caller, task.taskId);
    expect(t).toMatchObject({ status: TASK_STATUS.running, progress: 50 });
    expect(JSON.parse(t.result!)).toEqual({ total: 2, success: 1, failed: 0, pending: 1 });

    adapter.open(devices[1]!.id);
    await router.deliverPending([devices[1]!.id]);
    expect(adapter.sent.map((s) => s.deviceIntId)).toEqual([devices[0]!.id, devices[1]!.id]);
    await router.settle(adapter.sent[1]!.id, PUBLISH_STATUS.delivered);
    t = await getTask(db, caller, task.taskId);
    expect(t).toMatchObject({ status: TASK_STATUS.success, progress: 100, message: "all 2 devices reached" });
    expect((await memberLogs(task.id)).map((l) => l.publishStatus)).toEqual([2, 2]);
    expect((await groupLog(task.id)).publishStatus).toBe(PUBLISH_STATUS.delivered);
  });

  it("needAck 1: a member that stays away past the TTL fails the task", async () => {
    const { db, caller, router, group, groupLog } = await groupSetup(1);
    const { task } = await router.publishToGroup(caller, { group, payload: "x", needAck: 1 }, 1_000);
    expect(await router.expire(1_000 + TTL)).toBe(1);
    const t = await getTask(db, caller, task.taskId);
    expect(t).toMatchObject({ status: TASK_STATUS.failed, progress: 100, message: "1 of 1 devices failed" });
    expect((await groupLog(task.id)).publishStatus).toBe(PUBLISH_STATUS.failed);
  });

  it("finishes a command to a group with no devices at once, as a success", async () => {
    const { db, caller, router, group } = await groupSetup(0);
    const { task } = await router.publishToGroup(caller, { group, payload: "x", needAck: 1 });
    expect(task).toMatchObject({ status: TASK_STATUS.success, progress: 100, message: "the group has no devices" });
    expect(JSON.parse((await getTask(db, caller, task.taskId)).result!)).toEqual({
      total: 0,
      success: 0,
      failed: 0,
      pending: 0,
    });
  });

  it("keeps the group's own log out of device lists and its members' logs out of the group's list", async () => {
    const { db, caller, router, group, devices } = await groupSetup(2);
    const { controlLogId } = await router.publishToGroup(caller, { group, payload: "hi", needAck: 1 });
    const page = { page: 1, limit: 10 };
    expect((await listGroupControlLogs(db, caller, group.id, page)).items.map((l) => l.id)).toEqual([controlLogId]);
    const all = await listControlLogs(db, caller, page);
    expect(all.items.map((l) => l.deviceIntId).sort()).toEqual(devices.map((d) => d.id).sort());
  });
});

describe.each(engines)("commands with data points on $name", (engine) => {
  /** A product with a device command stream `cmd/motor` (speed 0..100, mode enum) and a gateway one `gw/cmd`. */
  async function pointSetup() {
    const s = await setup(engine);
    const productIntId = s.product.id;
    const gw = await createDevice(s.db, s.caller, {
      productId: s.product.productId,
      deviceName: "gw",
      deviceType: 2,
      authType: 1,
    });
    const speed = await createDataPoint(s.db, s.caller, {
      productIntId,
      dataPointName: "Speed",
      dataPointId: "speed",
      pointDataType: 1,
      dataTransType: 2,
      lowerLimit: 0,
      upperLimit: 100,
    });
    const mode = await createDataPoint(s.db, s.caller, {
      productIntId,
      dataPointName: "Mode",
      dataPointId: "mode",
      pointDataType: 3,
      dataTransType: 3,
      enum: ["auto", "manual"],
    });
    const reboot = await createDataPoint(s.db, s.caller, {
      productIntId,
      dataPointName: "Reboot",
      dataPointId: "reboot",
      pointDataType: 5,
      dataTransType: 2,
    });
    const stream = { productIntId, streamDataType: 1 };
    await createDataStream(s.db, s.caller, {
      ...stream,
      streamName: "Motor",
      streamType: 2,
      topic: "cmd/motor",
      dataPoints: [speed.id, mode.id],
    });
    await createDataStream(s.db, s.caller, {
      ...stream,
      streamName: "Gateway",
      streamType: 4,
      topic: "gw/cmd",
      dataPoints: [reboot.id],
    });
    const logCount = async () =>
      Number(
        (
          await s.db
            .selectFrom("controlLogs")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return { ...s, gw, logCount };
  }

  it("sends a data point command without a topic to its command stream's topic", async () => {
    const { db, caller, router, device } = await pointSetup();
    const d = await device("m1");
    const r = await router.publish(caller, { deviceIntId: d.id, payload: '{"speed": 42, "mode": "auto"}', qos: 1 });
    const log = await db.selectFrom("controlLogs").selectAll().where("id", "=", r.id).executeTakeFirstOrThrow();
    expect(log).toMatchObject({ topic: "cmd/motor", payload: '{"speed": 42, "mode": "auto"}' });
  });

  it("refuses a value outside the point's rules with FORM_INVALID naming the point, and records nothing", async () => {
    const { caller, router, device, logCount } = await pointSetup();
    const d = await device("m2");
    const before = await logCount();
    const err = await router
      .publish(caller, { deviceIntId: d.id, payload: '{"speed": 250, "mode": "turbo"}', qos: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RegistryError);
    expect(err).toMatchObject({
      code: "FORM_INVALID",
      errors: {
        "payload.speed": "must be at most 100 (upperLimit)",
        "payload.mode": "must be one of auto, manual (enum)",
      },
    });
    expect(await logCount()).toBe(before);
  });

  it("checks a gateway's commands against the gateway command streams (type 4), not the device ones", async () => {
    const { caller, router, gw } = await pointSetup();
    const ok = await router.publish(caller, { deviceIntId: gw.id, payload: '{"reboot": true}', qos: 1 });
    expect(ok.publishStatus).toBe(PUBLISH_STATUS.issued);
    await expect(router.publish(caller, { deviceIntId: gw.id, payload: '{"speed": 1}', qos: 1 })).rejects.toMatchObject(
      { code: "FORM_INVALID", errors: { "payload.speed": "is not a data point of the product's command streams" } },
    );
  });

  it("keeps opaque payloads and commands to other topics as they were", async () => {
    const { db, caller, router, device } = await pointSetup();
    const d = await device("m3");
    const plain = await router.publish(caller, { deviceIntId: d.id, payload: "on", qos: 1 });
    const other = await router.publish(caller, { deviceIntId: d.id, topic: "inbox", payload: '{"x": 1}', qos: 1 });
    const topics = await db
      .selectFrom("controlLogs")
      .select(["id", "topic"])
      .where("id", "in", [plain.id, other.id])
      .orderBy("id")
      .execute();
    expect(topics.map((l) => l.topic)).toEqual(["inbox", "inbox"]);
  });

  it("checks a group command like a device command and sends it to the stream's topic on every member", async () => {
    const { db, caller, router, product, device } = await pointSetup();
    const group = await createGroup(db, caller, { productId: product.productId, groupName: "Motors" });
    const members = [await device("gm1"), await device("gm2")];
    await addGroupDevices(
      db,
      caller,
      group.id,
      members.map((m) => m.id),
    );
    const g = await getGroup(db, caller, group.id);
    await expect(
      router.publishToGroup(caller, { group: g, payload: '{"speed": -5}', needAck: 1 }),
    ).rejects.toMatchObject({ code: "FORM_INVALID", errors: { "payload.speed": "must be at least 0 (lowerLimit)" } });
    const { task } = await router.publishToGroup(caller, { group: g, payload: '{"speed": 5}', needAck: 1 });
    const logs = await db.selectFrom("controlLogs").select("topic").where("taskIntId", "=", task.id).execute();
    expect(logs.map((l) => l.topic)).toEqual(["cmd/motor", "cmd/motor", "cmd/motor"]);
  });
});

describe("queued commands of connecting devices on SQLite", () => {
  it("are found through the devices' index, not by reading every issued command of the service", async () => {
    const { store } = await engines[0]!.open();
    expect(store.engine).toBe("sqlite");
    const { sql, parameters } = pendingCommandsQuery(store.db, [1, 2, 3], 0).compile();
    const plan = await store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${sql}`, [...parameters]),
    );
    const details = plan.rows.map((r) => r.detail);
    expect(details).toContain("SEARCH l USING INDEX control_logs_device_int_id_id (device_int_id=?)");
    expect(details.join("\n")).not.toContain("control_logs_issued");
  });
});
