import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "./test-tenants.js";
import { createTask, getTask, TASK_STATUS, updateTask } from "./tasks.js";

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
});
