import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0029: persistent MQTT sessions (`mqtt_sessions`, schema-sessions.ts), and on `control_logs` the packet identifier
 * of a command a persistent session was sent unacknowledged (`resume_packet_id`; `resume_released` 1 once the device
 * answered its QoS 2 PUBREC), which the device's next session gets it with again (docs/devices/mqtt.md "Persistent
 * sessions"). The same SQL on both engines; the partial index holds only sessions that will expire, for the sweep.
 */
export const mqttSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create table mqtt_sessions (
      device_int_id bigint not null,
      client_id text not null,
      session_id text not null,
      subscriptions text not null,
      expiry_interval bigint not null,
      expires_at bigint,
      updated_at bigint not null,
      primary key (device_int_id, client_id)
    )`.execute(db);
    await sql`create index mqtt_sessions_expires_at on mqtt_sessions (expires_at)
      where expires_at is not null`.execute(db);
    await sql`alter table control_logs add column resume_packet_id integer`.execute(db);
    await sql`alter table control_logs add column resume_released integer`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`alter table control_logs drop column resume_released`.execute(db);
    await sql`alter table control_logs drop column resume_packet_id`.execute(db);
    await sql`drop table mqtt_sessions`.execute(db);
  },
};
