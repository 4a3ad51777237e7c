import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0013: `device_events.metadata`, a JSON object text saying how an uplink reached the service (LoRaWAN: the
 * gateways that heard the frame with RSSI, SNR, frequency and data rate), listed with the event; null for the
 * protocols that have nothing to add. Nullable, so existing rows need no rewrite.
 */
export const eventMetadata: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table device_events add column metadata text`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table device_events drop column metadata`.execute(db);
  },
};
