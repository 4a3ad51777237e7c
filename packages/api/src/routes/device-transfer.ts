import { z } from "zod";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createTask, readExportFile, RegistryError, type Task } from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { errorResponse } from "../errors.js";
import { ApiRouter } from "../router.js";
import { parseDeviceCsv } from "../transfer/device-csv.js";
import { runDeviceExport } from "../transfer/device-export.js";
import { runDeviceImport } from "../transfer/device-import.js";
import { deviceFilterOf, deviceListQuery } from "./devices.js";
import { taskLink } from "../forms/tasks.js";

/** Default largest import file, bytes (32 MiB: some 150,000 devices with every column filled). */
const IMPORT_MAX_BYTES = 32 * 1024 * 1024;
/** Default lifetime of an export file, seconds (24 hours). */
const EXPORT_TTL_SECONDS = 86_400;

/** The device list's filters in `form`, without paging: an export takes every match. */
const exportQuery = (form: AppDeps["form"]) =>
  deviceListQuery(form).omit({ _page: true, _limit: true, _sort: true, _order: true });

const tooLarge = (max: number) => new RegistryError("FORM_INVALID", { file: `at most ${max} bytes` }, "File too large");

/** The bytes of an import upload: a multipart form's `file` field, or a text/csv body. */
async function uploadOf(c: Context<Env>): Promise<Uint8Array> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const form = await c.req.parseBody();
    const file = form.file;
    if (!(file instanceof File)) throw new RegistryError("FORM_INVALID", { file: "required: a file field" });
    return new Uint8Array(await file.arrayBuffer());
  }
  if (/^(text\/csv|application\/csv|text\/plain)\b/.test(type)) return new Uint8Array(await c.req.arrayBuffer());
  throw new RegistryError("FORM_INVALID", {
    file: "send a multipart/form-data body with a file field, or a text/csv body",
  });
}

/** A device import file: CSV with a header line (docs/devices/import-export.md). */
const csvFile = z
  .string()
  .meta({ contentMediaType: "text/csv", description: "CSV, a header line then one device a line" });

const accepted = (c: Context<Env>, task: Task) => c.json({ statusUrl: `/task_status/${task.taskId}` }, 202);

/**
 * Device import and export as tasks (docs/devices/import-export.md): `GET /devices_export` (the device list's
 * filters) and `POST /devices_import` (CSV) answer 202 `{statusUrl}`; an export's file is downloaded from
 * `GET /devices_export/{taskID}/file` by its tenant until it expires.
 */
export function deviceTransferRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const maxBytes = deps.importMaxBytes ?? IMPORT_MAX_BYTES;
  const router = new ApiRouter(docs, "Devices");
  // The app's 1 MiB body limit does not apply here (see app.ts): an import file may be larger, up to its own limit.
  router.app.use(
    "/devices_import",
    bodyLimit({ maxSize: maxBytes, onError: (c) => errorResponse(c, tooLarge(maxBytes)) }),
  );
  return router
    .get(
      "/devices_export",
      {
        summary: "Export the devices (and gateways) matching the device list's filters as CSV, in a task",
        query: exportQuery(deps.form),
        status: 202,
        response: taskLink,
      },
      async (c, { query }) => {
        const caller = c.get("caller");
        const task = await createTask(db, caller, { kind: "devices_export" });
        void runDeviceExport({
          store: deps.store,
          caller,
          taskIntId: task.id,
          taskId: task.taskId,
          filter: deviceFilterOf(query, true),
          secrets: c.get("view").secrets,
          ttlMs: (deps.exportTtlSeconds ?? EXPORT_TTL_SECONDS) * 1000,
        }).catch(deps.logError);
        return accepted(c, task);
      },
    )
    .get(
      "/devices_export/:taskID/file",
      {
        summary: "Download the CSV of a finished export task",
        response: z.string().describe("CSV, a header line then one device a line"),
        responseType: "text/csv",
      },
      async (c) => {
        const view = c.get("view");
        const content = await readExportFile(db, c.get("caller"), c.req.param("taskID") ?? "", view.secrets);
        return c.body(content, 200, {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="devices-${c.req.param("taskID")}.csv"`,
        });
      },
    )
    .post(
      "/devices_import",
      {
        summary: "Import devices from a CSV file (multipart `file` or text/csv body) in a task; bad rows are reported",
        status: 202,
        rawBody: {
          "multipart/form-data": z.object({ file: csvFile }),
          "text/csv": csvFile,
        },
        response: taskLink,
      },
      async (c) => {
        const caller = c.get("caller");
        const { rows } = parseDeviceCsv(await uploadOf(c));
        const task = await createTask(db, caller, { kind: "devices_import", message: `${rows.length} rows` });
        // Imported devices count for the gateways' pushed configurations too, once they are all in the store.
        void runDeviceImport({ store: deps.store, caller, taskIntId: task.id, rows })
          .then(() => deps.configChanges.tenantChanged(caller.tenantId))
          .catch(deps.logError);
        return accepted(c, task);
      },
    ).app;
}
