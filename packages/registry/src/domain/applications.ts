import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import type { ApplicationsTable, Database } from "../store/schema.js";
import { fail, isUniqueViolation } from "../errors.js";
import type { Caller, Role } from "./caller.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";
import { roleAtLeast } from "./users.js";

/** An application key as answered to callers: never the token or its hash. */
export type Application = Omit<Selectable<ApplicationsTable>, "appTokenHash" | "role"> & { role: Role };

/** Fields of a new key. `role` defaults to viewer; `expiresAt` is epoch ms (null = never). */
export interface ApplicationInput {
  appName: string;
  role?: Role | undefined;
  description?: string | null | undefined;
  expiresAt?: number | null | undefined;
}

/** Fields an edit may change (the key's id and token are fixed). */
export type ApplicationEdit = Partial<ApplicationInput> & { enable?: number | undefined };

/** SHA-256 (hex) of an application token: only this is stored. */
export const hashAppToken = (token: string): string => createHash("sha256").update(token).digest("hex");

const columns = [
  "id",
  "tenantId",
  "userIntId",
  "appId",
  "appName",
  "role",
  "description",
  "enable",
  "expiresAt",
  "createAt",
  "updateAt",
] as const;

const asApplication = (row: Omit<Selectable<ApplicationsTable>, "appTokenHash">): Application => ({
  ...row,
  role: row.role as Role,
});

/** PERMISSION_DENIED when a key would be given more power than its creator has. */
function assertRoleCap(caller: Caller, role: Role): void {
  if (!roleAtLeast(caller.role, role)) throw fail.denied(`A ${caller.role} may not create or edit ${role} keys`);
}

/** FORM_INVALID unless the expiry is in the future. */
function assertFuture(expiresAt: number | null | undefined, now: number): void {
  if (expiresAt !== undefined && expiresAt !== null && expiresAt <= now)
    throw fail.form({ expiresAt: "must be in the future" });
}

/**
 * Creates an application key for the caller's tenant, recording the caller as
 * its creator. Returns the record and the token: the token is shown only
 * here (a 32-byte base64url secret), the store keeps its SHA-256 hash. The
 * key's role may not exceed the caller's (PERMISSION_DENIED).
 */
export async function createApplication(
  db: Kysely<Database>,
  caller: Caller,
  input: ApplicationInput,
  now = Date.now(),
): Promise<{ application: Application; appToken: string }> {
  const role = input.role ?? "viewer";
  assertRoleCap(caller, role);
  assertFuture(input.expiresAt, now);
  const appToken = randomBytes(32).toString("base64url");
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await db
        .insertInto("applications")
        .values({
          tenantId: caller.tenantId,
          userIntId: caller.userIntId,
          appId: `app_${randomBytes(8).toString("hex")}`,
          appName: input.appName,
          appTokenHash: hashAppToken(appToken),
          role,
          description: input.description ?? null,
          enable: 1,
          expiresAt: input.expiresAt ?? null,
          createAt: now,
          updateAt: null,
        })
        .returning(columns)
        .executeTakeFirstOrThrow();
      return { application: asApplication(row), appToken };
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 5) throw err;
    }
  }
}

/** Lists the caller's tenant's keys, newest first, optionally filtered by name. */
export async function listApplications(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { appNameLike?: string | undefined } = {},
): Promise<ListResult<Application>> {
  let q = db.selectFrom("applications").select(columns).where("tenantId", "=", caller.tenantId);
  if (filter.appNameLike) q = q.where(ilike("appName", filter.appNameLike));
  const r = await paginate(q, page, "id");
  return { ...r, items: r.items.map(asApplication) };
}

/** One key of the caller's tenant; DATA_NOT_FOUND otherwise (also for other tenants' ids). */
export async function getApplication(db: Kysely<Database>, caller: Caller, id: number): Promise<Application> {
  const row = await db
    .selectFrom("applications")
    .select(columns)
    .where("tenantId", "=", caller.tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw fail.notFound("application");
  return asApplication(row);
}

/**
 * Edits a key of the caller's tenant (name, role within the caller's, description, enable, expiry); takes effect at
 * once.
 */
export async function updateApplication(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: ApplicationEdit,
  now = Date.now(),
): Promise<Application> {
  const app = await getApplication(db, caller, id);
  if (edit.role !== undefined && edit.role !== app.role) assertRoleCap(caller, edit.role);
  if (edit.expiresAt !== app.expiresAt) assertFuture(edit.expiresAt, now);
  const set = {
    ...(edit.appName !== undefined ? { appName: edit.appName } : {}),
    ...(edit.role !== undefined ? { role: edit.role } : {}),
    ...(edit.description !== undefined ? { description: edit.description } : {}),
    ...(edit.enable !== undefined ? { enable: edit.enable } : {}),
    ...(edit.expiresAt !== undefined ? { expiresAt: edit.expiresAt } : {}),
    updateAt: now,
  };
  await db.updateTable("applications").set(set).where("tenantId", "=", caller.tenantId).where("id", "=", id).execute();
  return getApplication(db, caller, id);
}

/** Deletes keys of the caller's tenant (other tenants' and unknown ids are ignored); they stop working at once. */
export async function deleteApplications(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("applications").where("tenantId", "=", caller.tenantId).where("id", "in", ids).execute();
}

/**
 * Resolves `Basic appID:appToken` to its caller: the key's tenant and role,
 * its creator as userIntId, and `app:<appName>` as the username. The row is
 * read on every call, so a disabled, expired or deleted key fails at once
 * (AUTH_FAILED, alike for every reason).
 */
export async function callerFromAppKey(
  db: Kysely<Database>,
  appId: string,
  appToken: string,
  now = Date.now(),
): Promise<Caller> {
  const app = await db.selectFrom("applications").selectAll().where("appId", "=", appId).executeTakeFirst();
  const given = Buffer.from(hashAppToken(appToken));
  const stored = Buffer.from(app?.appTokenHash ?? "");
  const match = stored.length === given.length && timingSafeEqual(stored, given);
  if (!app || !match || app.enable !== 1 || (app.expiresAt !== null && app.expiresAt <= now))
    throw fail.auth("Application key invalid, disabled or expired");
  return {
    userIntId: app.userIntId,
    username: `app:${app.appName}`,
    tenantId: app.tenantId,
    role: app.role as Role,
    serviceAdmin: false,
  };
}
