import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0021: `northbound_events.uplink_ids`, a JSON array of `device_events` ids. The uplinks one batch stored for one
 * tenant are one outbox row instead of one row each: the row's id is the last of as many event ids as it has
 * uplinks (the ids before it are reserved for them, appendUplinkEvents), and the feed gives each uplink its own
 * event, id and fields (readEvents). Null for every other row.
 */
export const outboxUplinkRanges: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table northbound_events add column uplink_ids text`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table northbound_events drop column uplink_ids`.execute(db);
  },
};
