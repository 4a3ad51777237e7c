import { api, type Rec } from "./api.ts";

/** Task states of `GET /task_status/{taskID}`: 1 waiting, 2 running, 3 success, 4 failed. */
const TASK_DONE = (status: number) => status === 3 || status === 4;

/**
 * Follows a task's `statusUrl` (`/task_status/<taskID>`, relative to /api/v1) every `everyMs` until it ends, telling
 * `onProgress` each state seen; resolves with the last one.
 */
export async function followTask(statusUrl: string, onProgress: (task: Rec) => void, everyMs = 500): Promise<Rec> {
  const path = statusUrl.replace(/^\/api\/v1/, "");
  for (;;) {
    const task = await api<Rec>("GET", path);
    onProgress(task);
    if (TASK_DONE(Number(task.status))) return task;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
