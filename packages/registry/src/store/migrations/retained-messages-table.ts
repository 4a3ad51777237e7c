import { sql, type Kysely } from "kysely";

/**
 * `retained_messages` (migration 0030): a device's retained command (its desired state on a topic) and its retained
 * uplink (the topic's last reported value), one row per (device, direction, topic), as MQTT keeps one retained
 * message per topic (MQTT 3.1.1 §3.3.1.3, MQTT 5.0 §3.3.1.3). The engines differ only in the type names.
 */
export async function createRetainedMessages(db: Kysely<unknown>, types: { id: string; blob: string }): Promise<void> {
  await sql`create table retained_messages (
    tenant_id text not null,
    device_int_id ${sql.raw(types.id)} not null,
    direction text not null,
    topic text not null,
    payload ${sql.raw(types.blob)} not null,
    qos integer not null,
    properties text,
    control_log_int_id ${sql.raw(types.id)},
    update_at ${sql.raw(types.id)} not null,
    primary key (device_int_id, direction, topic)
  )`.execute(db);
}
