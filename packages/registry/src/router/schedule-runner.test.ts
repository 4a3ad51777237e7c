import { afterAll, describe, expect, it } from "vitest";
import { engines, type EngineUnderTest } from "../store/test-engines.js";
import { twoTenants } from "../domain/test-tenants.js";
import { createDevice, deleteDevices } from "../domain/devices.js";
import { addGroupDevices, createGroup, deleteGroups, removeGroupDevices } from "../domain/groups.js";
import { createProduct } from "../domain/products.js";
import { createSchedule, getSchedule, listSchedules } from "../domain/schedules.js";
import { MINUTE_MS, SCHEDULE_TYPE } from "../domain/schedule-times.js";
import { RegistryError } from "../errors.js";
import { SessionTable } from "../sessions/session-table.js";
import { CommandRouter } from "./commands.js";
import { ScheduleRunner } from "./schedule-runner.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);
const page = { page: 1, limit: 10 };

async function setup(engine: EngineUnderTest) {
  const t = await twoTenants(engine);
  const skipped: Array<{ scheduleId: number; lateMs: number }> = [];
  const runnerOn = (db = t.db) =>
    new ScheduleRunner(db, new CommandRouter(db, new SessionTable(), 60_000), { onSkipped: (s) => skipped.push(s) });
  const product = await createProduct(t.db, t.caller, { productName: "Valves", cloudProtocol: 1 });
  const device = await createDevice(t.db, t.caller, {
    productId: product.productId,
    deviceName: "v1",
    deviceId: "v1",
    upLinkSystem: 1,
    authType: 1,
  });
  const everyMinutes = (n: number, now = T0) =>
    createSchedule(
      t.db,
      t.caller,
      {
        target: { deviceIntId: device.id },
        scheduleName: `every ${n}`,
        scheduleType: SCHEDULE_TYPE.interval,
        intervalMinute: n,
        payload: "tick",
        qos: 1,
      },
      now,
    );
  const logsOf = (db = t.db) =>
    db.selectFrom("controlLogs").selectAll().where("deviceIntId", "=", device.id).orderBy("id").execute();
  return { ...t, skipped, runnerOn, product, device, everyMinutes, logsOf };
}

describe.each(engines)("scheduled commands on $name", (engine) => {
  it("fires an interval schedule as a normal device command of its creator, once per interval", async () => {
    const { db, caller, runnerOn, everyMinutes, logsOf } = await setup(engine);
    const s = await everyMinutes(2);
    expect(s.nextRunAt).toBe(T0 + 2 * MINUTE_MS);
    const runner = runnerOn();
    expect(await runner.tick(T0 + MINUTE_MS)).toBe(0);
    expect(await runner.tick(T0 + 2 * MINUTE_MS + 500)).toBe(1);
    expect(await runner.tick(T0 + 2 * MINUTE_MS + 900)).toBe(0);
    expect(await runner.tick(T0 + 4 * MINUTE_MS + 10)).toBe(1);
    const logs = await logsOf();
    expect(logs.map((l) => [l.payload, l.publishStatus, l.publishUser, l.createAt])).toEqual([
      ["tick", 1, "root", T0 + 2 * MINUTE_MS + 500],
      ["tick", 1, "root", T0 + 4 * MINUTE_MS + 10],
    ]);
    const after = await getSchedule(db, caller, s.id, "device");
    expect(after).toMatchObject({
      nextRunAt: T0 + 6 * MINUTE_MS,
      lastRunAt: T0 + 4 * MINUTE_MS + 10,
      lastControlLogId: logs[1]!.id,
      lastPublishStatus: 1,
      lastError: null,
    });
  });

  it("keeps its due time across a restart: a run missed by less than an interval fires once at start", async () => {
    const { store, place, caller, everyMinutes, runnerOn, logsOf, skipped } = await setup(engine);
    const s = await everyMinutes(10);
    await store.close();
    const { store: again } = await engine.open({}, place);
    // Down from before the first run until 7 minutes after it.
    expect(await runnerOn(again.db).tick(T0 + 17 * MINUTE_MS)).toBe(1);
    expect(await logsOf(again.db)).toHaveLength(1);
    expect(skipped).toEqual([]);
    const after = await getSchedule(again.db, caller, s.id, "device");
    expect(after.nextRunAt).toBe(T0 + 20 * MINUTE_MS);
  });

  it("skips a run missed by an interval or more, reports it, and fires again on the grid", async () => {
    const { db, caller, everyMinutes, runnerOn, logsOf, skipped } = await setup(engine);
    const s = await everyMinutes(10);
    const runner = runnerOn();
    expect(await runner.tick(T0 + 25 * MINUTE_MS)).toBe(0);
    expect(skipped).toEqual([
      { scheduleId: s.id, tenantId: caller.tenantId, due: T0 + 10 * MINUTE_MS, lateMs: 15 * MINUTE_MS },
    ]);
    expect((await getSchedule(db, caller, s.id, "device")).nextRunAt).toBe(T0 + 30 * MINUTE_MS);
    expect(await runner.tick(T0 + 30 * MINUTE_MS)).toBe(1);
    expect(await logsOf()).toHaveLength(1);
  });

  it("fires a run once when two nodes look at the same time", async () => {
    const { everyMinutes, runnerOn, logsOf } = await setup(engine);
    await everyMinutes(1);
    const fired = await Promise.all([runnerOn().tick(T0 + MINUTE_MS), runnerOn().tick(T0 + MINUTE_MS)]);
    expect(fired.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await logsOf()).toHaveLength(1);
  });

  it("fires a once schedule at its time and then ends it", async () => {
    const { db, caller, device, runnerOn, logsOf } = await setup(engine);
    const s = await createSchedule(
      db,
      caller,
      {
        target: { deviceIntId: device.id },
        scheduleName: "once",
        scheduleType: SCHEDULE_TYPE.once,
        crontabTime: T0 + 90_000,
        topic: "cfg",
        payload: "go",
        qos: 0,
      },
      T0,
    );
    const runner = runnerOn();
    expect(await runner.tick(T0 + 90_000)).toBe(1);
    expect(await runner.tick(T0 + 10 * MINUTE_MS)).toBe(0);
    expect((await logsOf()).map((l) => [l.topic, l.payload, l.qos])).toEqual([["cfg", "go", 0]]);
    expect((await getSchedule(db, caller, s.id, "device")).nextRunAt).toBeNull();
  });

  it("fires a group schedule as a group command with its task", async () => {
    const { db, caller, product, device, runnerOn } = await setup(engine);
    const group = await createGroup(db, caller, { groupName: "all", productId: product.productId });
    await addGroupDevices(db, caller, group.id, [device.id]);
    const s = await createSchedule(
      db,
      caller,
      {
        target: { groupIntId: group.id },
        scheduleName: "cron",
        scheduleType: SCHEDULE_TYPE.cron,
        cronExpression: "*/5 * * * *",
        payload: "all",
        qos: 1,
      },
      T0,
    );
    expect(s.nextRunAt).toBe(T0 + 5 * MINUTE_MS);
    expect(await runnerOn().tick(T0 + 5 * MINUTE_MS)).toBe(1);
    const after = (await listSchedules(db, caller, "group", page)).items[0]!;
    expect(after).toMatchObject({ groupName: "all", lastTaskStatus: 2, nextRunAt: T0 + 10 * MINUTE_MS });
    const task = await db
      .selectFrom("tasks")
      .selectAll()
      .where("taskId", "=", after.lastTaskId!)
      .executeTakeFirstOrThrow();
    expect(task.kind).toBe("group_publish");
    // Deleting the (emptied) group ends its schedules in the same transaction.
    await removeGroupDevices(db, caller, group.id, [device.id]);
    await deleteGroups(db, caller, [group.id]);
    expect(await db.selectFrom("schedules").select("id").execute()).toEqual([]);
  });

  it("ends a device's schedules when the device is deleted", async () => {
    const { db, caller, device, everyMinutes, runnerOn } = await setup(engine);
    await everyMinutes(1);
    await deleteDevices(db, caller, [device.id]);
    expect(await db.selectFrom("schedules").select("id").execute()).toEqual([]);
    expect(await runnerOn().tick(T0 + MINUTE_MS)).toBe(0);
  });

  it("ends the schedules of a deleted tenant without sending anything", async () => {
    const { db, other, runnerOn } = await setup(engine);
    const theirs = await createProduct(db, other, { productName: "Pumps", cloudProtocol: 1 });
    const pump = await createDevice(db, other, {
      productId: theirs.productId,
      deviceName: "p1",
      upLinkSystem: 1,
      authType: 1,
    });
    const s = await createSchedule(
      db,
      other,
      {
        target: { deviceIntId: pump.id },
        scheduleName: "pump",
        scheduleType: SCHEDULE_TYPE.interval,
        intervalMinute: 1,
        payload: "on",
        qos: 1,
      },
      T0,
    );
    const runner = runnerOn();
    expect(await runner.tick(T0 + MINUTE_MS)).toBe(1);
    await db.deleteFrom("tenants").where("tenantId", "=", other.tenantId).execute();
    expect(await runner.tick(T0 + 2 * MINUTE_MS)).toBe(0);
    const row = await db.selectFrom("schedules").selectAll().where("id", "=", s.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ nextRunAt: null, lastError: "the tenant was deleted" });
    const logs = await db.selectFrom("controlLogs").select("id").where("deviceIntId", "=", pump.id).execute();
    expect(logs).toHaveLength(1);
    expect(await runner.tick(T0 + 10 * MINUTE_MS)).toBe(0);
  });

  it("keeps schedules to their tenant: another tenant neither sees them nor targets its devices", async () => {
    const { db, caller, other, device, everyMinutes } = await setup(engine);
    const s = await everyMinutes(3);
    expect((await listSchedules(db, other, "device", page)).count).toBe(0);
    await expect(getSchedule(db, other, s.id, "device")).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
    await expect(getSchedule(db, caller, s.id, "group")).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
    const steal = createSchedule(db, other, {
      target: { deviceIntId: device.id },
      scheduleName: "x",
      scheduleType: 1,
      intervalMinute: 1,
      payload: "p",
      qos: 1,
    });
    await expect(steal).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
  });

  it("refuses a zero interval, a past time and a bad cron expression, naming the field", async () => {
    const { db, caller, device } = await setup(engine);
    const base = { target: { deviceIntId: device.id }, scheduleName: "bad", payload: "p", qos: 1 as const };
    const errorsOf = async (extra: object) => {
      const err = await createSchedule(db, caller, { ...base, scheduleType: 1, ...extra }, T0).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistryError);
      return (err as RegistryError).errors;
    };
    expect(await errorsOf({ intervalMinute: 0 })).toEqual({ IntervalMinute: expect.stringMatching(/1 to/) });
    expect(await errorsOf({ scheduleType: 0, crontabTime: T0 - 1 })).toEqual({ crontabTime: "must be in the future" });
    expect(await errorsOf({ scheduleType: 2, cronExpression: "* * *" })).toEqual({
      cronExpression: expect.stringMatching(/five fields/),
    });
  });
});
