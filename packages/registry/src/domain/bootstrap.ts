import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { hashPassword } from "../auth/passwords.js";
import { randomCode } from "./ids.js";
import { getOrCreateSetting } from "./settings.js";

/** What the first start created, so the process can tell the operator once. */
export interface BootstrapResult {
  created: boolean;
  tenantId?: string;
  username?: string;
  /** Set only when the password was generated (not configured): print it once. */
  generatedPassword?: string;
}

/**
 * On a database with no users, creates the first tenant and its service
 * administrator from the configured credentials, or with a generated
 * password. There is never a built-in default secret.
 */
export async function bootstrapAdmin(
  db: Kysely<Database>,
  admin: { username: string; password?: string | undefined; tenantName: string },
  now = Date.now(),
): Promise<BootstrapResult> {
  const existing = await db.selectFrom("users").select("id").limit(1).executeTakeFirst();
  if (existing) return { created: false };
  const generatedPassword = admin.password ? undefined : randomBytes(12).toString("base64url");
  const password = admin.password ?? generatedPassword!;
  const tenantId = randomCode(10);
  const passwordHash = await hashPassword(password);
  await db.transaction().execute(async (tx) => {
    await tx
      .insertInto("tenants")
      .values({ tenantId, tenantName: admin.tenantName, enable: 1, createAt: now, updateAt: null })
      .execute();
    await tx
      .insertInto("users")
      .values({
        tenantId,
        username: admin.username,
        email: null,
        passwordHash,
        role: "admin",
        serviceAdmin: 1,
        enable: 1,
        createAt: now,
        updateAt: null,
      })
      .execute();
  });
  return { created: true, tenantId, username: admin.username, ...(generatedPassword ? { generatedPassword } : {}) };
}

/** The HMAC secret that signs API tokens: configured, or generated once and persisted. */
export async function tokenSecret(db: Kysely<Database>, configured?: string): Promise<string> {
  if (configured) return configured;
  return getOrCreateSetting(db, "api.tokenSecret", () => randomBytes(32).toString("base64url"));
}
