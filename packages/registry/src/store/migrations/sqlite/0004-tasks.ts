import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/** Columns kept when control_logs is rebuilt, in order. */
const CONTROL_LOG_COLUMNS =
  "id, tenant_id, device_int_id, group_int_id, topic, payload, qos, publish_status, user_int_id, publish_user, expires_at, create_at, update_at";

/**
 * SQLite DDL for background tasks (group publish now; device import and
 * export later) and for commands that belong to a task. A group command's own
 * control log names no device, so `control_logs.device_int_id` becomes
 * nullable: SQLite cannot drop a NOT NULL, hence the table is rebuilt (ids and
 * the autoincrement counter kept).
 */
const ddl = [
  `create table tasks (
    id integer primary key autoincrement,
    tenant_id text not null,
    task_id text not null unique,
    kind text not null,
    status integer not null,
    progress integer not null default 0,
    message text,
    result text,
    user_int_id integer,
    create_at integer not null,
    update_at integer
  )`,
  `create index tasks_tenant_id_id on tasks (tenant_id, id)`,
  `create table control_logs_new (
    id integer primary key autoincrement,
    tenant_id text not null,
    device_int_id integer,
    group_int_id integer,
    topic text,
    payload text not null,
    qos integer not null,
    publish_status integer not null,
    user_int_id integer,
    publish_user text,
    expires_at integer,
    create_at integer not null,
    update_at integer,
    task_int_id integer
  )`,
  `insert into control_logs_new (${CONTROL_LOG_COLUMNS}) select ${CONTROL_LOG_COLUMNS} from control_logs`,
  `delete from sqlite_sequence where name = 'control_logs_new'`,
  `insert into sqlite_sequence (name, seq) select 'control_logs_new', seq from sqlite_sequence where name = 'control_logs'`,
  `drop table control_logs`,
  `alter table control_logs_new rename to control_logs`,
  `create index control_logs_tenant_id_id on control_logs (tenant_id, id)`,
  `create index control_logs_device_int_id_id on control_logs (device_int_id, id)`,
  `create index control_logs_task_int_id on control_logs (task_int_id)`,
  // The expiry sweep and the queue both look for issued commands.
  `create index control_logs_issued on control_logs (publish_status, expires_at)`,
];

/** 0004: tasks, and control logs that may belong to a task or name no device. */
export const tasks: Migration = {
  async up(db: Kysely<unknown>) {
    // kysely runs SQLite migrations outside a transaction; the rebuild must not stop half-way.
    await db.transaction().execute(async (tx) => {
      for (const statement of ddl) await sql.raw(statement).execute(tx);
    });
  },
  async down(db: Kysely<unknown>) {
    // device_int_id stays nullable: undoing that would need another rebuild, and no row breaks it.
    for (const statement of [
      "drop index control_logs_issued",
      "drop index control_logs_task_int_id",
      "alter table control_logs drop column task_int_id",
      "drop table tasks",
    ]) {
      await sql.raw(statement).execute(db);
    }
  },
};
