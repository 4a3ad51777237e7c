import { z } from "zod";
import {
  createApplication,
  deleteApplications,
  getApplication,
  listApplications,
  updateApplication,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { application } from "../forms/applications.js";
import { formatDate } from "../forms/dates.js";
import { requireRole } from "../middleware/roles.js";
import { codeField, idParam, idsFrom, idsQuery, listQuery, pageFrom, roleField } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { applicationRecord } from "../forms/applications.js";

const appName = z.string().trim().min(1, "required").max(50, "at most 50 characters");
const description = z.string().max(300, "at most 300 characters").nullish();

/** `YYYY-MM-DD HH:MM:SS` (UTC) → epoch ms; impossible dates such as Feb 30 are refused. */
const dateInput = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, "must be YYYY-MM-DD HH:MM:SS")
  .transform((text, ctx) => {
    const ms = Date.parse(`${text.replace(" ", "T")}Z`);
    if (Number.isNaN(ms) || formatDate(ms) !== text) {
      ctx.addIssue({ code: "custom", message: "not a real date" });
      return z.NEVER;
    }
    return ms;
  });

const createBody = z.strictObject({ appName, role: roleField.optional(), description, expiresAt: dateInput.nullish() });

/** Edits may carry the whole record; read-only fields (appID, createAt, …) are accepted and ignored. */
const editBody = z.looseObject({
  appName: appName.optional(),
  role: roleField.optional(),
  description,
  enable: codeField([0, 1]).optional(),
  expiresAt: dateInput.nullish(),
});

/**
 * Application keys (`Basic appID:appToken` for programs): admins only. The
 * token is answered once, by the create; lists and details never show it.
 */
export function applicationRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Applications")
    .get(
      "/applications",
      {
        summary: "List application keys (admins)",
        response: listOf(applicationRecord),
        query: listQuery({ appName_like: z.string().optional() }),
      },
      async (c, { query }) => {
        const r = await listApplications(db, requireRole(c, "admin"), pageFrom(query), {
          appNameLike: query.appName_like,
        });
        return list(r, (a) => application(a));
      },
    )
    .get("/applications/:id", { summary: "Application key detail (admins)", response: applicationRecord }, async (c) =>
      application(await getApplication(db, requireRole(c, "admin"), idParam(c))),
    )
    .post(
      "/applications",
      {
        summary: "Create an application key; its appToken is shown only in this answer",
        body: createBody,
        response: applicationRecord,
      },
      async (c, { body }) => {
        const r = await createApplication(db, requireRole(c, "admin"), body);
        return application(r.application, r.appToken);
      },
    )
    .put(
      "/applications/:id",
      {
        summary: "Edit an application key (name, role, description, enable, expiresAt)",
        body: editBody,
        response: applicationRecord,
      },
      async (c, { body }) =>
        application(
          await updateApplication(db, requireRole(c, "admin"), idParam(c), {
            appName: body.appName,
            role: body.role,
            description: body.description,
            enable: body.enable,
            expiresAt: body.expiresAt,
          }),
        ),
    )
    .delete(
      "/applications",
      { summary: "Delete application keys; they stop working at once", query: idsQuery },
      async (c, { query }) => {
        await deleteApplications(db, requireRole(c, "admin"), idsFrom(query));
      },
    ).app;
}
