import { z } from "zod";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import {
  createFirmware,
  deleteFirmware,
  getFirmware,
  groupOfCommand,
  listFirmwares,
  RegistryError,
  startFirmwareUpdate,
  type Firmware,
} from "@iot/registry";
import type { AppDeps, Env } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { errorResponse } from "../errors.js";
import { f } from "../forms/common.js";
import { taskLink } from "../forms/tasks.js";
import { ApiRouter } from "../router.js";

/** Default largest firmware package, bytes (IOT_FIRMWARE_MAX_BYTES). */
const FIRMWARE_MAX_BYTES = 2 * 1024 * 1024;
/** What a multipart body may add to the package: its fields and boundaries. */
const MULTIPART_SLACK_BYTES = 64 * 1024;
/** The upload's path: the app's 1 MiB body limit does not apply to it (app.ts), its own does. */
export const FIRMWARE_UPLOAD_PATH = "/api/v1/firmwares";

/** A firmware package record. */
const firmwareRecord = z.object({
  firmwareID: f.str,
  name: f.str,
  version: f.str,
  productID: f.str,
  size: f.int.describe("bytes"),
  sha256: f.str.describe("SHA-256 of the package, lowercase hex"),
  createAt: f.int,
});

const record = (x: Firmware): z.output<typeof firmwareRecord> => ({
  firmwareID: x.firmwareId,
  name: x.firmwareName,
  version: x.version,
  productID: x.productId,
  size: Number(x.size),
  sha256: x.sha256,
  createAt: Number(x.createAt),
});

const text = (max: number) => z.string().trim().min(1, "required").max(max, `at most ${max} characters`);
const uploadFields = z.object({
  name: text(64),
  version: text(64),
  productID: text(64),
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "64 hex digits")
    .optional(),
});

/** The fields and bytes of a multipart upload; FORM_INVALID names each field that is missing or wrong. */
async function uploadOf(c: Context<Env>) {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (!type.startsWith("multipart/form-data"))
    throw new RegistryError("FORM_INVALID", { file: "send a multipart/form-data body with a file field" });
  const form = await c.req.parseBody();
  const fields = uploadFields.safeParse(
    Object.fromEntries(Object.entries(form).filter(([, v]) => typeof v === "string")),
  );
  const errors: Record<string, string> = {};
  if (!fields.success) for (const i of fields.error.issues) errors[String(i.path[0])] ??= i.message;
  if (!(form.file instanceof File)) errors.file = "required: the package as a file field";
  if (!fields.success || !(form.file instanceof File)) throw new RegistryError("FORM_INVALID", errors);
  return { ...fields.data, bytes: new Uint8Array(await form.file.arrayBuffer()) };
}

const updateBody = z
  .strictObject({
    /** pull (default): the device downloads the package from the LwM2M adapter; push: it is written to /5/0/0. */
    method: z.enum(["pull", "push"]).optional(),
    deviceIDs: z.array(z.string().min(1, "required")).min(1, "at least one device").max(10_000).optional(),
    groupID: z.string().min(1, "required").optional(),
  })
  .refine((b) => (b.deviceIDs === undefined) !== (b.groupID === undefined), {
    message: "give deviceIDs or groupID, one of them",
    path: ["deviceIDs"],
  });

/**
 * Firmware packages of LwM2M products and their updates (docs/devices/lwm2m.md, "Firmware update"): upload
 * (multipart `file`, `name`, `version`, `productID`, optional `sha256` checked), list, detail, delete, and
 * `POST /firmwares/{firmwareID}/update` for devices or a group, a task answered 202 `{statusUrl}`.
 */
export function firmwareRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  const dir = deps.firmwareDir;
  const maxBytes = deps.firmwareMaxBytes ?? FIRMWARE_MAX_BYTES;
  const folder = () => {
    if (!dir) throw new RegistryError("UNAVAILABLE", undefined, "no firmware folder is set up");
    return dir;
  };
  const router = new ApiRouter(docs, "Firmware");
  router.app.use(
    "/firmwares",
    bodyLimit({
      maxSize: maxBytes + MULTIPART_SLACK_BYTES,
      onError: (c) => errorResponse(c, new RegistryError("FORM_INVALID", { file: `at most ${maxBytes} bytes` })),
    }),
  );
  return router
    .post(
      "/firmwares",
      {
        summary: "Upload a firmware package of an LwM2M product (its size and SHA-256 are computed, and checked)",
        status: 201,
        rawBody: {
          "multipart/form-data": z.object({
            file: z.string().meta({ contentMediaType: "application/octet-stream" }),
            name: z.string(),
            version: z.string(),
            productID: z.string(),
            sha256: z.string().optional(),
          }),
        },
        response: firmwareRecord,
      },
      async (c) => {
        const u = await uploadOf(c);
        const upload = { name: u.name, version: u.version, productId: u.productID, sha256: u.sha256, bytes: u.bytes };
        return record(await createFirmware(db, folder(), c.get("caller"), upload, maxBytes));
      },
    )
    .get(
      "/firmwares",
      {
        summary: "List firmware packages, newest first",
        query: z.object({ productID: z.string().optional() }),
        response: z.object({ items: z.array(firmwareRecord) }),
      },
      async (c, { query }) => ({ items: (await listFirmwares(db, c.get("caller"), query.productID)).map(record) }),
    )
    .get("/firmwares/:firmwareID", { summary: "Firmware package detail", response: firmwareRecord }, async (c) =>
      record(await getFirmware(db, c.get("caller"), c.req.param("firmwareID") ?? "")),
    )
    .delete("/firmwares/:firmwareID", { summary: "Delete a firmware package and its file", status: 204 }, async (c) => {
      await deleteFirmware(db, folder(), c.get("caller"), c.req.param("firmwareID") ?? "");
    })
    .post(
      "/firmwares/:firmwareID/update",
      {
        summary: "Update the firmware of devices (deviceIDs) or of a group's devices (groupID), in a task",
        body: updateBody,
        status: 202,
        response: taskLink,
      },
      async (c, { body }) => {
        const caller = c.get("caller");
        const firmware = await getFirmware(db, caller, c.req.param("firmwareID") ?? "");
        const targets = body.groupID
          ? { groupIntId: (await groupOfCommand(db, caller, body.groupID)).id }
          : { deviceIds: body.deviceIDs ?? [] };
        const { task, done } = await startFirmwareUpdate(
          { db, commands: deps.commands, dir: folder() },
          caller,
          firmware,
          body.method ?? "pull",
          targets,
        );
        done.catch(deps.logError);
        return c.json({ statusUrl: `/task_status/${task.taskId}` }, 202);
      },
    ).app;
}
