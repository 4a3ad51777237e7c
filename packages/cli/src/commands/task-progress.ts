import { SingleBar } from "cli-progress";
import { dynamicCall, type AnswerOf, type ApiClient } from "../client.js";
import type { Io } from "../output.js";

/** A task as `task_status` answers it: status 1 waiting, 2 running, 3 success, 4 failed. */
export type TaskStatus = AnswerOf<"/api/v1/task_status/{taskID}", "GET">;

/** How a task's progress is shown while it runs. */
export type ProgressView = "bar" | "lines" | "none";

/**
 * Polls a task (`statusUrl` as the API gives it, `/task_status/<id>`) until it ends and answers its last status. As
 * it goes it shows what the task reports (an import's `<n> of <total> rows`): on a terminal as a bar with that message,
 * else (a pipe, a log, a test's `io`) as one line on `io.err` each time the message changes.
 */
export async function followTask(
  client: ApiClient,
  io: Io,
  statusUrl: string,
  o: { view: ProgressView; intervalMs?: number },
): Promise<TaskStatus> {
  const bar =
    o.view === "bar" ? new SingleBar({ stream: process.stderr, format: "{bar} {percentage}% {msg}" }) : undefined;
  bar?.start(100, 0, { msg: "" });
  let shown: string | undefined;
  try {
    for (;;) {
      const t = (await dynamicCall(client, "GET", `/api/v1${statusUrl}`)) as TaskStatus;
      const msg = t.message ?? "";
      bar?.update(Math.round(t.progress), { msg });
      if (o.view === "lines" && t.status < 3 && msg !== shown) io.err(`${Math.round(t.progress)}% ${msg}\n`);
      shown = msg;
      if (t.status >= 3) return t;
      await new Promise((r) => setTimeout(r, o.intervalMs ?? 300));
    }
  } finally {
    bar?.stop();
  }
}
