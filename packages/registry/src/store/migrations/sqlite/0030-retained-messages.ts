import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";
import { createRetainedMessages } from "../retained-messages-table.js";

/** 0030: the devices' retained commands and uplinks (retained-messages-table.ts). */
export const retainedMessages: Migration = {
  async up(db: Kysely<unknown>) {
    await createRetainedMessages(db, { id: "integer", blob: "blob" });
  },
  async down(db: Kysely<unknown>) {
    await sql`drop table retained_messages`.execute(db);
  },
};
