import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { createLoraMulticast } from "../lora-multicast-table.js";

/** 0033: LoRaWAN multicast sessions of groups (lora-multicast-table.ts). */
export const loraMulticast: Migration = {
  async up(db: Kysely<unknown>) {
    await createLoraMulticast(db, { id: "integer" });
  },
  async down(db: Kysely<unknown>) {
    await sql`drop table lora_multicast`.execute(db);
  },
};
