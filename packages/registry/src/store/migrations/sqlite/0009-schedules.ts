import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0009: scheduled commands and device export files.
 *
 * `schedules`: a device or group command to send on a schedule (scheduleType 0 once at a time, 1 every
 * intervalMinute minutes, 2 by a cron expression). `next_run_at` is the durable due time (epoch ms; null once the
 * schedule has ended); a node claims a run by moving it forward only if it is still the one it read, so every run
 * fires once whatever the node count. The last run's control log or task is kept to show its outcome.
 *
 * `export_files`: the CSV a device export task wrote, kept in the database (both engines, every central node reads
 * it) until `expires_at`.
 */
const ddl = [
  `create table schedules (
    id integer primary key autoincrement,
    tenant_id text not null,
    schedule_name text not null,
    device_int_id integer,
    group_int_id integer,
    schedule_type integer not null,
    interval_minute integer,
    crontab_time integer,
    cron_expression text,
    topic text,
    payload text not null,
    qos integer not null,
    user_int_id integer,
    publish_user text,
    next_run_at integer,
    last_run_at integer,
    last_control_log_id integer,
    last_task_int_id integer,
    last_error text,
    create_at integer not null,
    update_at integer
  )`,
  `create index schedules_tenant_id_id on schedules (tenant_id, id)`,
  `create index schedules_next_run_at on schedules (next_run_at)`,
  `create index schedules_device_int_id on schedules (device_int_id)`,
  `create index schedules_group_int_id on schedules (group_int_id)`,
  `create table export_files (
    task_int_id integer primary key,
    tenant_id text not null,
    content text not null,
    expires_at integer not null,
    create_at integer not null
  )`,
  `create index export_files_expires_at on export_files (expires_at)`,
];

/** 0009: schedules and export files. */
export const schedules: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of ddl) await sql.raw(statement).execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop table export_files`.execute(db);
    await sql`drop table schedules`.execute(db);
  },
};
