import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0006: per-user bearer token generations. A password or role change moves
 * the user to the next generation, which ends the tokens of earlier ones
 * (checked on the user row every request reads anyway); `token_kept` names
 * the one token that survives (its holder changed its own password).
 */
export const tokenGeneration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table users add column token_generation integer not null default 0`.execute(db);
    await sql`alter table users add column token_kept text`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table users drop column token_kept`.execute(db);
    await sql`alter table users drop column token_generation`.execute(db);
  },
};
