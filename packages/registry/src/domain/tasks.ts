import type { Kysely, Selectable } from "kysely";
import type { Database, TasksTable } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { uuid } from "./ids.js";

/** Task status codes (DESIGN §4): 1 waiting, 2 running, 3 success, 4 failed. 3 and 4 are final. */
export const TASK_STATUS = { waiting: 1, running: 2, success: 3, failed: 4 } as const;
export type TaskStatus = (typeof TASK_STATUS)[keyof typeof TASK_STATUS];

/** What a task does; each kind decides what its `result` holds. */
export type TaskKind = "group_publish" | "devices_import" | "devices_export" | "firmware_update";

/** A task row; `result` is JSON text. */
export type Task = Selectable<TasksTable>;

/** A change to a running task; only the fields given are written. */
export interface TaskUpdate {
  status?: TaskStatus;
  /** Percent done; clamped to 0..100. */
  progress?: number;
  message?: string | null;
  /** Stored as JSON text. */
  result?: unknown;
}

const FINAL: number[] = [TASK_STATUS.success, TASK_STATUS.failed];

/** Starts a task of the caller's tenant with a fresh UUID taskId (the status URL's last segment). */
export async function createTask(
  db: Kysely<Database>,
  caller: Caller,
  input: { kind: TaskKind; status?: TaskStatus; message?: string | null; result?: unknown },
  now = Date.now(),
): Promise<Task> {
  return db
    .insertInto("tasks")
    .values({
      tenantId: caller.tenantId,
      taskId: uuid(),
      kind: input.kind,
      status: input.status ?? TASK_STATUS.waiting,
      progress: 0,
      message: input.message ?? null,
      result: input.result === undefined ? null : JSON.stringify(input.result),
      userIntId: caller.userIntId,
      createAt: now,
      updateAt: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** One task of the caller's tenant by its taskId; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getTask(db: Kysely<Database>, caller: Caller, taskId: string): Promise<Task> {
  const row = await db
    .selectFrom("tasks")
    .selectAll()
    .where("tenantId", "=", caller.tenantId)
    .where("taskId", "=", taskId)
    .executeTakeFirst();
  if (!row) throw fail.notFound("task");
  return row;
}

/**
 * Records a task's progress (called by the work itself, not by a caller, so
 * it takes the row id). A finished task (3 or 4) is final: a late or
 * out-of-order update of it changes nothing and answers false.
 */
export async function updateTask(
  db: Kysely<Database>,
  id: number,
  change: TaskUpdate,
  now = Date.now(),
): Promise<boolean> {
  const r = await db
    .updateTable("tasks")
    .set({
      ...(change.status !== undefined ? { status: change.status } : {}),
      ...(change.progress !== undefined ? { progress: Math.min(100, Math.max(0, Math.floor(change.progress))) } : {}),
      ...(change.message !== undefined ? { message: change.message } : {}),
      ...(change.result !== undefined ? { result: JSON.stringify(change.result) } : {}),
      updateAt: now,
    })
    .where("id", "=", id)
    .where("status", "not in", FINAL)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * Marks failed the unfinished tasks of these kinds, of every tenant, that have not moved for `idleMs` (default 60 s):
 * work that ran inside a node that stopped (an import or export) and that nothing will resume. Such work records its
 * progress at least every few seconds, so a task another live node is running is left alone. Answers how many.
 */
export async function failInterruptedTasks(
  db: Kysely<Database>,
  kinds: TaskKind[],
  idleMs = 60_000,
  now = Date.now(),
): Promise<number> {
  const r = await db
    .updateTable("tasks")
    .set({ status: TASK_STATUS.failed, message: "interrupted by a restart of the service", updateAt: now })
    .where("kind", "in", kinds)
    .where("status", "not in", FINAL)
    .where((eb) => eb(eb.fn.coalesce("updateAt", "createAt"), "<", now - idleMs))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
