import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { getTask } from "./tasks.js";

/** Default lifetime of an export file, ms (24 hours). */
export const DEFAULT_EXPORT_TTL_MS = 86_400_000;

/**
 * Keeps the CSV an export task wrote, in the database (both engines; every central node can serve it), until
 * `expiresAt` (epoch ms); `secrets` says whether it holds device tokens and LoRa keys. Expired files of any tenant
 * are removed on the way.
 */
export async function saveExportFile(
  db: Kysely<Database>,
  file: { taskIntId: number; tenantId: string; content: string; expiresAt: number; secrets: boolean },
  now = Date.now(),
): Promise<void> {
  await purgeExpiredExports(db, now);
  await db
    .insertInto("exportFiles")
    .values({ ...file, secrets: file.secrets ? 1 : 0, createAt: now })
    .execute();
}

/**
 * The CSV of an export task of the caller's tenant. DATA_NOT_FOUND for an unknown or foreign task, a task that has
 * no file (yet), and an expired file, which is removed. A file holding secrets is PERMISSION_DENIED unless
 * `mayReadSecrets` (the caller's role is checked at download as it was at export: a viewer with an admin's link
 * must not read the tokens its own export leaves out).
 */
export async function readExportFile(
  db: Kysely<Database>,
  caller: Caller,
  taskId: string,
  mayReadSecrets: boolean,
  now = Date.now(),
): Promise<string> {
  const task = await getTask(db, caller, taskId);
  const file = await db
    .selectFrom("exportFiles")
    .select(["content", "expiresAt", "secrets"])
    .where("taskIntId", "=", task.id)
    .where("tenantId", "=", caller.tenantId)
    .executeTakeFirst();
  if (!file) throw fail.notFound("file");
  if (file.expiresAt <= now) {
    await db.deleteFrom("exportFiles").where("taskIntId", "=", task.id).execute();
    throw fail.notFound("file");
  }
  if (file.secrets && !mayReadSecrets)
    throw fail.denied("This export holds device tokens: a viewer cannot download it");
  return file.content;
}

/** Removes every expired export file; answers how many went. */
export async function purgeExpiredExports(db: Kysely<Database>, now = Date.now()): Promise<number> {
  const r = await db.deleteFrom("exportFiles").where("expiresAt", "<=", now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
