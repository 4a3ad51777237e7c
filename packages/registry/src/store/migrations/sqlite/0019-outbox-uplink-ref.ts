import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0019: `northbound_events.uplink_id`, the `device_events` row an uplink event reports. An uplink's event no longer
 * copies its topic, payload (as base64) and metadata into the outbox: the feed reads them from the uplink's own row
 * (readEvents), so each stored uplink writes its payload once. Nullable: other events, and the uplink events written
 * before, keep their fields in `data`.
 */
export const outboxUplinkRef: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table northbound_events add column uplink_id integer`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table northbound_events drop column uplink_id`.execute(db);
  },
};
