import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0005: an IMEI names one device across the whole service (it is the LwM2M
 * endpoint name). Empty IMEIs become null (none), then a unique index over
 * the rest; it also serves the endpoint lookup. Devices that already share an
 * IMEI stop the migration with a message naming them, to be fixed by hand.
 */
export const uniqueImei: Migration = {
  async up(db: Kysely<unknown>) {
    // kysely runs SQLite migrations outside a transaction: all of it or nothing.
    await db.transaction().execute(async (tx) => {
      await sql`update devices set imei = null where imei = ''`.execute(tx);
      const shared = await sql<{ imei: string; ids: string }>`
        select imei, group_concat(id, ',' order by id) as ids from devices where imei is not null group by imei having count(*) > 1
      `.execute(tx);
      if (shared.rows.length > 0) {
        const list = shared.rows.slice(0, 10).map((r) => `${r.imei} (device ids ${r.ids})`);
        throw new Error(`devices share an IMEI, give each its own or clear it: ${list.join("; ")}`);
      }
      await sql`create unique index devices_imei on devices (imei)`.execute(tx);
    });
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index devices_imei`.execute(db);
  },
};
