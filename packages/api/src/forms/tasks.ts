import type { Task } from "@iot/registry";
import { parseJson } from "./common.js";

/** Task status record (DESIGN §4): `{status, progress, message, taskID, result}`; the same in both forms. */
export function taskStatus(t: Task) {
  return {
    status: t.status,
    progress: t.progress,
    message: t.message,
    taskID: t.taskId,
    result: parseJson(t.result),
  };
}
