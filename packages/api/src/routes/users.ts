import { z } from "zod";
import { createUser, deleteUsers, getUser, listUsers, updateUser } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { user } from "../forms/users.js";
import { requireRole } from "../middleware/roles.js";
import { codeField, idParam, idsFrom, idsQuery, listQuery, pageFrom, roleField } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { userRecord } from "../forms/users.js";

/** No `@` (so a username never looks like someone's e-mail at login) and no `:` (kept for `app:<name>` callers). */
const username = z
  .string()
  .trim()
  .min(1, "required")
  .max(50, "at most 50 characters")
  .regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, _ . - only");
const password = z.string().min(8, "at least 8 characters").max(200, "at most 200 characters");
const email = z.email("must be an e-mail address").max(200, "at most 200 characters").nullish();

const fields = { username, password, role: roleField, email, tenantID: z.string().trim().min(1).max(50).optional() };
const createBody = z.strictObject(fields);

/**
 * Edits may carry the whole record: every member a create takes is validated as the create validates it (username
 * and tenantID, fixed at creation, are compared by the registry), and `enable`; other read-only fields are ignored.
 */
const editBody = z.looseObject({ ...fields, enable: codeField([0, 1]).optional() }).partial();

/**
 * Users of the caller's tenant: admins only. Other tenants' users are 404 on
 * every verb and absent from lists; passwords are never answered.
 */
export function userRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Users")
    .get(
      "/users",
      {
        summary: "List the tenant's users (admins)",
        response: listOf(userRecord),
        query: listQuery({ username_like: z.string().optional() }),
      },
      async (c, { query }) =>
        list(
          await listUsers(db, requireRole(c, "admin"), pageFrom(query), { usernameLike: query.username_like }),
          user,
        ),
    )
    .get("/users/:id", { summary: "User detail (admins)", response: userRecord }, async (c) =>
      user(await getUser(db, requireRole(c, "admin"), idParam(c))),
    )
    .post(
      "/users",
      {
        summary: "Create a user (admins; the service administrator may name any tenantID)",
        body: createBody,
        response: userRecord,
      },
      async (c, { body }) => user(await createUser(db, requireRole(c, "admin"), { ...body, tenantId: body.tenantID })),
    )
    .put(
      "/users/:id",
      { summary: "Edit a user: role, email, password, enable", body: editBody, response: userRecord },
      async (c, { body }) =>
        user(
          await updateUser(db, requireRole(c, "admin"), idParam(c), {
            username: body.username,
            tenantId: body.tenantID,
            role: body.role,
            email: body.email,
            password: body.password,
            enable: body.enable,
          }),
        ),
    )
    .delete(
      "/users",
      { summary: "Delete users (not yourself, not the service administrator)", query: idsQuery },
      async (c, { query }) => {
        await deleteUsers(db, requireRole(c, "admin"), idsFrom(query));
      },
    ).app;
}
