import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { addGroupDevices, createGroup, getGroup } from "../domain/groups.js";
import { listControlLogs, listGroupControlLogs } from "../domain/logs.js";
import { getTask, TASK_STATUS } from "../domain/tasks.js";
import { fakeAdapterLink } from "../sessions/fake-adapter-link.js";
import { readEvents } from "../northbound/events.js";
import { PUBLISH_STATUS } from "./publish-status.js";
import { routerSetup, TTL } from "./test-command-router.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("group commands on $name", (engine) => {
  async function groupSetup(members: number) {
    const s = await routerSetup(engine);
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
    const { task, controlLogId } = await router.publishToGroup(caller, { group, payload: "all-off", qos: 0 });
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
    await router.publishToGroup(caller, { group, payload: "all-off", qos: 0 });
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
    const { task } = await router.publishToGroup(caller, { group, payload: "reboot", qos: 1 });
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

  it("qos 2: tracks each member at QoS 2 and marks the group's own log delivered once every member completed it", async () => {
    const { caller, sessions, router, group, devices, memberLogs, groupLog } = await groupSetup(1);
    const adapter = fakeAdapterLink(sessions);
    adapter.open(devices[0]!.id);
    const { task } = await router.publishToGroup(caller, { group, payload: "once", qos: 2 });
    expect(adapter.sent.map((s) => [s.deviceIntId, s.qos])).toEqual([[devices[0]!.id, 2]]);
    expect((await memberLogs(task.id)).map((l) => [l.qos, l.publishStatus])).toEqual([[2, 1]]);
    await router.settle(adapter.sent[0]!.id, PUBLISH_STATUS.delivered);
    expect((await memberLogs(task.id)).map((l) => l.publishStatus)).toEqual([2]);
    expect(await groupLog(task.id)).toMatchObject({ qos: 2, publishStatus: PUBLISH_STATUS.delivered });
  });

  it("needAck 1: a member that stays away past the TTL fails the task", async () => {
    const { db, caller, router, group, groupLog } = await groupSetup(1);
    const { task } = await router.publishToGroup(caller, { group, payload: "x", qos: 1 }, 1_000);
    expect(await router.expire(1_000 + TTL)).toBe(1);
    const t = await getTask(db, caller, task.taskId);
    expect(t).toMatchObject({ status: TASK_STATUS.failed, progress: 100, message: "1 of 1 devices failed" });
    expect((await groupLog(task.id)).publishStatus).toBe(PUBLISH_STATUS.failed);
  });

  it("finishes a command to a group with no devices at once, as a success", async () => {
    const { db, caller, router, group } = await groupSetup(0);
    const { task } = await router.publishToGroup(caller, { group, payload: "x", qos: 1 });
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
    const { controlLogId } = await router.publishToGroup(caller, { group, payload: "hi", qos: 1 });
    const page = { page: 1, limit: 10 };
    expect((await listGroupControlLogs(db, caller, group.id, page)).items.map((l) => l.id)).toEqual([controlLogId]);
    const all = await listControlLogs(db, caller, page);
    expect(all.items.map((l) => l.deviceIntId).sort()).toEqual(devices.map((d) => d.id).sort());
  });
});
