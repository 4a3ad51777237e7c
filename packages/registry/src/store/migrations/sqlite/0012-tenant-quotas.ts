import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0012: per-tenant resource limits (multi-tenant fairness, as Eclipse Hono's tenant resource limits), set by the
 * service administrator: `max_devices` (devices and gateways of the tenant), `max_connections` (device sessions
 * open at once) and `max_uplink_rate` (uplink messages per second, enforced by each adapter). 0 means unlimited,
 * which every existing tenant keeps.
 */
export const tenantQuotas: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table tenants add column max_devices integer not null default 0`.execute(db);
    await sql`alter table tenants add column max_connections integer not null default 0`.execute(db);
    await sql`alter table tenants add column max_uplink_rate integer not null default 0`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table tenants drop column max_uplink_rate`.execute(db);
    await sql`alter table tenants drop column max_connections`.execute(db);
    await sql`alter table tenants drop column max_devices`.execute(db);
  },
};
