import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import type { paths } from "../api-types.js";
import { followTask, type TaskStatus } from "./task-progress.js";

/** A client whose task status answers the next of `answers` on each request (the last one from then on). */
function taskApi(answers: Array<Partial<TaskStatus>>) {
  let i = 0;
  const fetch = async () =>
    new Response(JSON.stringify({ taskID: "t", result: null, ...answers[Math.min(i++, answers.length - 1)] }), {
      headers: { "content-type": "application/json" },
    });
  return createClient<paths>({ baseUrl: "http://api.test", fetch });
}

describe("followTask", () => {
  it("prints each progress message the task reports, once, until it ends", async () => {
    const client = taskApi([
      { status: 1, progress: 0, message: "1500 rows" },
      { status: 2, progress: 33, message: "500 of 1500 rows" },
      { status: 2, progress: 33, message: "500 of 1500 rows" },
      { status: 2, progress: 66, message: "1000 of 1500 rows" },
      { status: 3, progress: 100, message: "1500 devices created, 0 rows failed" },
    ]);
    let err = "";
    const t = await followTask(client, { out: () => {}, err: (s) => (err += s) }, "/task_status/t", {
      view: "lines",
      intervalMs: 1,
    });
    expect(t.status).toBe(3);
    expect(err).toBe("0% 1500 rows\n33% 500 of 1500 rows\n66% 1000 of 1500 rows\n");
  });

  it("prints nothing with no view (--json)", async () => {
    let err = "";
    const client = taskApi([
      { status: 2, progress: 50, message: "1 of 2 rows" },
      { status: 4, message: "failed" },
    ]);
    const t = await followTask(client, { out: () => {}, err: (s) => (err += s) }, "/task_status/t", {
      view: "none",
      intervalMs: 1,
    });
    expect([t.status, err]).toEqual([4, ""]);
  });
});
