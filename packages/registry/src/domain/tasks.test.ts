import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "./test-tenants.js";
import { createTask, failInterruptedTasks, getTask, TASK_STATUS, updateTask } from "./tasks.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("tasks on $name", (engine) => {
  it("creates a waiting task with a fresh UUID taskId, no progress and the caller as its user", async () => {
    const { db, caller } = await twoTenants(engine);
    const t = await createTask(db, caller, { kind: "devices_export" }, 5_000);
    expect(t.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(t).toMatchObject({
      tenantId: caller.tenantId,
      kind: "devices_export",
      status: TASK_STATUS.waiting,
      progress: 0,
      message: null,
      result: null,
      userIntId: caller.userIntId,
      createAt: 5_000,
      updateAt: null,
    });
    expect(await getTask(db, caller, t.taskId)).toEqual(t);
    expect((await createTask(db, caller, { kind: "devices_export" })).taskId).not.toBe(t.taskId);
  });

  it("answers DATA_NOT_FOUND for another tenant's task and for an unknown taskId alike", async () => {
    const { db, caller, other } = await twoTenants(engine);
    const t = await createTask(db, caller, {
      kind: "group_publish",
      status: TASK_STATUS.running,
      result: { total: 2 },
    });
    await expect(getTask(db, other, t.taskId)).rejects.toMatchObject({
      code: "DATA_NOT_FOUND",
      errors: { task: "not found" },
    });
    await expect(getTask(db, caller, "no-such-task")).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
    expect((await getTask(db, caller, t.taskId)).result).toBe('{"total":2}');
  });

  it("records progress (clamped to 0..100), message and result as JSON while the task runs", async () => {
    const { db, caller } = await twoTenants(engine);
    const t = await createTask(db, caller, { kind: "group_publish" });
    expect(
      await updateTask(
        db,
        t.id,
        { status: TASK_STATUS.running, progress: 142.7, message: "half", result: { done: 1 } },
        9_000,
      ),
    ).toBe(true);
    expect(await getTask(db, caller, t.taskId)).toMatchObject({
      status: 2,
      progress: 100,
      message: "half",
      result: '{"done":1}',
      updateAt: 9_000,
    });
    await updateTask(db, t.id, { progress: -3 });
    expect((await getTask(db, caller, t.taskId)).progress).toBe(0);
  });

  it("keeps a finished task as it finished: later updates change nothing", async () => {
    const { db, caller } = await twoTenants(engine);
    const t = await createTask(db, caller, { kind: "group_publish" });
    expect(
      await updateTask(db, t.id, { status: TASK_STATUS.failed, progress: 100, message: "1 of 2 devices failed" }),
    ).toBe(true);
    expect(await updateTask(db, t.id, { status: TASK_STATUS.running, progress: 50, message: "late" })).toBe(false);
    expect(await getTask(db, caller, t.taskId)).toMatchObject({
      status: TASK_STATUS.failed,
      progress: 100,
      message: "1 of 2 devices failed",
    });
  });

  it("fails the import and export tasks a stopped node left unfinished, not busy ones nor group publishes", async () => {
    const { db, caller, other } = await twoTenants(engine);
    const stale = await createTask(db, caller, { kind: "devices_import", status: TASK_STATUS.running }, 1_000);
    const waiting = await createTask(db, other, { kind: "devices_export" }, 1_000);
    const busy = await createTask(db, caller, { kind: "devices_import", status: TASK_STATUS.running }, 1_000);
    await updateTask(db, busy.id, { progress: 40 }, 95_000);
    const group = await createTask(db, caller, { kind: "group_publish", status: TASK_STATUS.running }, 1_000);
    const done = await createTask(db, caller, { kind: "devices_export", status: TASK_STATUS.success }, 1_000);
    expect(await failInterruptedTasks(db, ["devices_import", "devices_export"], 60_000, 100_000)).toBe(2);
    const statusOf = async (t: { taskId: string; tenantId: string }) =>
      (await getTask(db, t.tenantId === caller.tenantId ? caller : other, t.taskId)).status;
    expect(await Promise.all([stale, waiting, busy, group, done].map(statusOf))).toEqual([4, 4, 2, 2, 3]);
    expect((await getTask(db, caller, stale.taskId)).message).toBe("interrupted by a restart of the service");
  });
});
