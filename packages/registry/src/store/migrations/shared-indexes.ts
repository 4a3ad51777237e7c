import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Migrations whose SQL is the same on SQLite and PostgreSQL: each engine's list (sqlite/index.ts,
 * postgres/index.ts) takes them from here under the same name. Like every migration, they must not change once
 * shipped.
 */

/** A migration creating one index (`definition` follows `create index <name> on`) and dropping it on the way down. */
function indexMigration(name: string, definition: RawBuilder<unknown>): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index ${sql.id(name)} on ${definition}`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      await sql`drop index ${sql.id(name)}`.execute(db);
    },
  };
}

/**
 * 0025: `metrics_product`. The data pipeline reads a product's formula metrics (`where product_int_id = ?`) every
 * two seconds while the product's devices send, and without an index each read scanned every metric of the service.
 */
export const metricsProduct = indexMigration("metrics_product", sql`metrics (product_int_id)`);

/**
 * 0026: `devices_lora_gateways`, the LoRa gateways (deviceType 2, gatewayProtocol 4) by deviceID. A gateway's
 * session is admitted by the EUI its packet forwarder sends, which is its deviceID in whichever tenant; no index led
 * with device_id (`unique (tenant_id, device_id)`), so each admission scanned every device. Partial: it holds the
 * LoRa gateways only, and no other device's write pays for it.
 */
export const loraGateways = indexMigration(
  "devices_lora_gateways",
  sql`devices (device_id) where device_type = 2 and gateway_protocol = 4`,
);

/**
 * 0027: `export_files.secrets`, 1 when the file holds device tokens and LoRa keys (an admin's or operator's export),
 * so that a viewer who has the download link cannot read them (docs/devices/import-export.md). Files exported before
 * it count as holding secrets.
 */
export const exportFileSecrets: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table export_files add column secrets integer not null default 1`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table export_files drop column secrets`.execute(db);
  },
};

/**
 * 0028: a command's MQTT 5.0 PUBLISH properties (`control_logs.properties`, JSON text) and, while it waits for its
 * device's answer on its response topic, the key that answer carries (`control_logs.awaiting_answer`, docs/devices/
 * mqtt.md "Request/response"). Both nullable: existing rows need no rewrite. The partial index holds only the
 * commands waiting for an answer, looked up by each uplink that carries correlation data.
 */
export const commandProperties: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table control_logs add column properties text`.execute(db);
    await sql`alter table control_logs add column awaiting_answer text`.execute(db);
    await sql`create index control_logs_awaiting_answer on control_logs (device_int_id, awaiting_answer)
      where awaiting_answer is not null`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index control_logs_awaiting_answer`.execute(db);
    await sql`alter table control_logs drop column awaiting_answer`.execute(db);
    await sql`alter table control_logs drop column properties`.execute(db);
  },
};
