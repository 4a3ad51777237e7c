import { getTask } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { taskStatus, taskStatusRecord } from "../forms/tasks.js";
import { ApiRouter } from "../router.js";

/** `GET /task_status/{taskID}`: where a group publish (and later an import or export) reports its progress. */
export function taskRoutes(deps: AppDeps, docs: ApiDocs) {
  return new ApiRouter(docs, "Tasks").get(
    "/task_status/:taskID",
    { summary: "Status, progress and result of a task", response: taskStatusRecord },
    async (c) => taskStatus(await getTask(deps.store.db, c.get("caller"), c.req.param("taskID") ?? "")),
  ).app;
}
