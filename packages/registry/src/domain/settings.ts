import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { isUniqueViolation } from "../errors.js";

/**
 * Returns the stored value of a service setting, creating it with `make()`
 * the first time. Safe when two nodes start at once: the first insert wins.
 */
export async function getOrCreateSetting(db: Kysely<Database>, key: string, make: () => string): Promise<string> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
  if (row) return row.value;
  try {
    await db.insertInto("settings").values({ key, value: make() }).execute();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const created = await db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirstOrThrow();
  return created.value;
}
