import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0020: drops `northbound_events_create_at`. Every event paid for an entry in it, and only the pruner read it:
 * rows are appended in id order as they are created, so the pruner now reads the oldest rows by id and stops at the
 * first one young enough (pruneEvents). A bare SQLite trial put the index at 0.8–2.5 µs of CPU per event (outbox rows
 * at 6.4–7.2 µs with it, 3.9–6.4 without; noisy, and session 12's trial measured no difference).
 */
export const outboxNoTimeIndex: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`drop index northbound_events_create_at`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`create index northbound_events_create_at on northbound_events (create_at)`.execute(db);
  },
};
