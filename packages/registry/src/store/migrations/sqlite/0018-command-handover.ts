import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0017: `control_logs.handed_at`, when a node last handed the still-issued command to an adapter (several nodes,
 * docs/scale-out.md). The command TTL sweep runs on one node and cannot see another node's commands in flight: it
 * leaves a command alone while its answer may still come (the in-flight grace after this time). Nullable (never
 * handed over, or one node), so existing rows need no rewrite.
 */
export const commandHandover: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table control_logs add column handed_at integer`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table control_logs drop column handed_at`.execute(db);
  },
};
