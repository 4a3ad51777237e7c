import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0008: a gateway's field-bus channel settings (`devices.channel`, JSON text: how a Modbus gateway reaches its
 * slaves and how often it polls them; the registry builds the configuration it pushes to the gateway's Modbus
 * adapter from them), and what an adapter said about a command it settled (`control_logs.result`: a Modbus
 * exception, a refused configuration), so the operator sees why a command failed.
 */
export const modbus: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table devices add column channel text`.execute(db);
    await sql`alter table control_logs add column result text`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table control_logs drop column result`.execute(db);
    await sql`alter table devices drop column channel`.execute(db);
  },
};
