import { sql, type Kysely, type Migration } from "kysely";

/**
 * 0023: a trigram index of device ids, as 0022 made for names, for `deviceID_like` (the device list, uplinks and
 * commands). Before it, at 100,000 devices and 1,000,000 uplinks, `/devices?deviceID_like=…` took 45 ms and
 * `/device_events?deviceID_like=…` 277 ms at the 95th percentile (`bench:rest`): the uplinks were read newest first
 * and each one's device id compared, since no index finds the devices first.
 */
export const deviceIdTrigrams: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of [
      sql`create virtual table devices_id_fts using fts5(device_id, content='devices', content_rowid='id', tokenize='trigram')`,
      sql`create trigger devices_id_fts_insert after insert on devices begin
            insert into devices_id_fts (rowid, device_id) values (new.id, new.device_id);
          end`,
      sql`create trigger devices_id_fts_delete after delete on devices begin
            insert into devices_id_fts (devices_id_fts, rowid, device_id) values ('delete', old.id, old.device_id);
          end`,
      sql`create trigger devices_id_fts_change after update of device_id on devices begin
            insert into devices_id_fts (devices_id_fts, rowid, device_id) values ('delete', old.id, old.device_id);
            insert into devices_id_fts (rowid, device_id) values (new.id, new.device_id);
          end`,
      sql`insert into devices_id_fts (devices_id_fts) values ('rebuild')`,
    ])
      await statement.execute(db);
  },
  async down(db: Kysely<unknown>) {
    for (const statement of [
      sql`drop trigger devices_id_fts_change`,
      sql`drop trigger devices_id_fts_delete`,
      sql`drop trigger devices_id_fts_insert`,
      sql`drop table devices_id_fts`,
    ])
      await statement.execute(db);
  },
};
