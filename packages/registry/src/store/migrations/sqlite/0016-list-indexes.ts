import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0016: indexes that answer the big lists from the index alone (issue 19, REST at fleet size). The device list
 * counts and pages a tenant's devices by id, filtering on device_type (gateways) and lower(device_name) (`_like`):
 * with them in the index no table row is read for rows off the page, and SQLite reads the lowered name from the
 * index instead of lowering every name again (a third of a `_like` scan). One device's uplinks are counted and paged by
 * (device, tenant, id) for the same reason. Each replaces an index it extends (same leading columns), so inserts pay
 * for no more indexes than before.
 */
export const listIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of [
      sql`create index devices_tenant_list on devices (tenant_id, id, device_type, lower(device_name))`,
      sql`drop index devices_tenant_id_id`,
      sql`create index device_events_device_tenant_id on device_events (device_int_id, tenant_id, id)`,
      sql`drop index device_events_device_int_id_id`,
    ])
      await statement.execute(db);
  },
  async down(db: Kysely<unknown>) {
    for (const statement of [
      sql`create index device_events_device_int_id_id on device_events (device_int_id, id)`,
      sql`drop index device_events_device_tenant_id`,
      sql`create index devices_tenant_id_id on devices (tenant_id, id)`,
      sql`drop index devices_tenant_list`,
    ])
      await statement.execute(db);
  },
};
