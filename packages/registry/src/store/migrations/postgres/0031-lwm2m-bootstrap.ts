import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0031: `lwm2m_bootstrap`, an LwM2M device's bootstrap settings (JSON text: securityMode, serverUri, lifetime,
 * binding; docs/devices/lwm2m.md, Bootstrap). Null, or a member left out, takes the deployment's default.
 */
export const lwm2mBootstrap: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table devices add column lwm2m_bootstrap text`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table devices drop column lwm2m_bootstrap`.execute(db);
  },
};
