import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0014: several central nodes over one database (docs/scale-out.md). `cluster_nodes` beats, `cluster_adapters` and
 * `cluster_sessions` say which node holds which adapter stream and device session, `cluster_messages` is the
 * durable routing outbox a NOTIFY wakes its node for, `cluster_leases` lets one node at a time run a singleton job,
 * `login_failures` counts failed logins across nodes. Only PostgreSQL writes them; SQLite stays single-node.
 */
const ddl = [
  `create table cluster_nodes (
    node_id text primary key,
    api_address text not null,
    grpc_address text not null,
    started_at integer not null,
    heartbeat_at integer not null,
    stopped_at integer
  )`,
  `create table cluster_adapters (
    instance_id text primary key,
    node_id text not null,
    protocol integer not null,
    version text not null,
    attached_at integer not null
  )`,
  `create index cluster_adapters_node_id on cluster_adapters (node_id)`,
  `create table cluster_sessions (
    session_id text primary key,
    device_int_id integer not null,
    node_id text not null,
    instance_id text not null,
    opened_at integer not null
  )`,
  `create index cluster_sessions_device_int_id on cluster_sessions (device_int_id)`,
  `create index cluster_sessions_node_id on cluster_sessions (node_id)`,
  `create table cluster_messages (
    id integer primary key autoincrement,
    node_id text not null,
    body text not null,
    create_at integer not null
  )`,
  `create index cluster_messages_node_id_id on cluster_messages (node_id, id)`,
  `create table cluster_leases (
    name text primary key,
    node_id text not null,
    expires_at integer not null
  )`,
  `create table login_failures (
    key text not null,
    at integer not null
  )`,
  `create index login_failures_key_at on login_failures (key, at)`,
  `create index login_failures_at on login_failures (at)`,
];

const tables = [
  "login_failures",
  "cluster_leases",
  "cluster_messages",
  "cluster_sessions",
  "cluster_adapters",
  "cluster_nodes",
];

export const cluster: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of ddl) await sql.raw(statement).execute(db);
  },
  async down(db: Kysely<unknown>) {
    for (const table of tables) await sql.raw(`drop table ${table}`).execute(db);
  },
};
