import { sql, type Kysely, type Migration } from "kysely";

/**
 * 0026: `devices_lora_gateways`, the LoRa gateways (deviceType 2, gatewayProtocol 4) by deviceID. A gateway's
 * session is admitted by the EUI its packet forwarder sends, which is its deviceID in whichever tenant; no index led
 * with device_id (`unique (tenant_id, device_id)`), so each admission scanned every device. Partial: it holds the
 * LoRa gateways only, and no other device's write pays for it.
 */
export const loraGateways: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create index devices_lora_gateways on devices (device_id) where device_type = 2 and gateway_protocol = 4`.execute(
      db,
    );
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index devices_lora_gateways`.execute(db);
  },
};
