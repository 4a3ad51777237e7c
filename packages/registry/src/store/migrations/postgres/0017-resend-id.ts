import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0017: `device_events.resend_id`, the device's own identity of an uplink (MQTT packet id, CoAP message id and token,
 * HTTP Idempotency-Key), so a resend that reaches another adapter process after the first one died is recognised
 * (issue 18). Nullable, so existing rows need no rewrite, and deliberately not indexed: only uplinks flagged as a
 * possible resend (rare) look it up, among the device's latest rows through device_events_device_tenant_id, and
 * every other insert pays for no extra index.
 */
export const resendId: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table device_events add column resend_id text`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table device_events drop column resend_id`.execute(db);
  },
};
