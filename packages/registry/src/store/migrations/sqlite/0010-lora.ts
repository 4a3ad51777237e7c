import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0010: what the LoRaWAN network server looks devices up by, unique service-wide (a frame names no tenant):
 * `lora_dev_eui` (an OTAA device's DevEUI, upper case) and `lora_dev_addr` (an ABP device's DevAddr, or an OTAA
 * device's once it joined); and `lora_session`, the network state (JSON: the session keys, frame counters and used
 * DevNonces), kept apart from the `lora` settings users edit. Existing LoRa devices get their keys here.
 */
export const lora: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table devices add column lora_dev_eui text`.execute(db);
    await sql`alter table devices add column lora_dev_addr text`.execute(db);
    await sql`alter table devices add column lora_session text`.execute(db);
    const rows = await sql<{ id: number; device_id: string; lora: string | null }>`
      select d.id, d.device_id, d.lora from devices d join products p on p.id = d.product_int_id
      where p.cloud_protocol = 4 and d.lora is not null`.execute(db);
    for (const r of rows.rows) {
      const type = (JSON.parse(r.lora!) as { type?: string }).type;
      const id = r.device_id.toUpperCase();
      if (type === "otaa") await sql`update devices set lora_dev_eui = ${id} where id = ${r.id}`.execute(db);
      if (type === "abp") await sql`update devices set lora_dev_addr = ${id} where id = ${r.id}`.execute(db);
    }
    await sql`create unique index devices_lora_dev_eui on devices (lora_dev_eui)`.execute(db);
    await sql`create unique index devices_lora_dev_addr on devices (lora_dev_addr)`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index devices_lora_dev_addr`.execute(db);
    await sql`drop index devices_lora_dev_eui`.execute(db);
    await sql`alter table devices drop column lora_session`.execute(db);
    await sql`alter table devices drop column lora_dev_addr`.execute(db);
    await sql`alter table devices drop column lora_dev_eui`.execute(db);
  },
};
