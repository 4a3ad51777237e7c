import { z } from "zod";
import type { Task } from "@iot/registry";
import { f, parseJson } from "./common.js";

/** A task status record. */
export const taskStatusRecord = z.object({
  status: f.int.describe("1 waiting, 2 running, 3 success, 4 failed"),
  progress: f.num,
  message: f.strN,
  taskID: f.str,
  result: f.json,
});

/** Task status record (DESIGN §4): `{status, progress, message, taskID, result}`; the same in both forms. */
export function taskStatus(t: Task): z.output<typeof taskStatusRecord> {
  return {
    status: t.status,
    progress: t.progress,
    message: t.message,
    taskID: t.taskId,
    result: parseJson(t.result),
  };
}

/** The answer of a request that started a task: where to follow it (`GET /task_status/<taskID>`). */
export const taskLink = z.object({ statusUrl: z.string().describe("/task_status/<taskID>") });
