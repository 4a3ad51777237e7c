import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * sqlite DDL for the management API's own tables: device groups and their
 * members, application keys for programs, and device ↔ certificate bindings.
 */
const ddl = [
  `create table groups (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    group_id text not null,
    group_name text not null,
    description text,
    product_int_id integer not null,
    create_at integer not null,
    update_at integer,
    unique (tenant_id, group_id)
  )`,
  `create index groups_tenant_id_id on groups (tenant_id, id)`,
  `create table group_devices (
    group_int_id integer not null,
    device_int_id integer not null,
    create_at integer not null,
    primary key (group_int_id, device_int_id)
  )`,
  `create index group_devices_device_int_id on group_devices (device_int_id)`,
  `create table applications (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    app_id text not null unique,
    app_name text not null,
    app_token_hash text not null,
    role text not null,
    description text,
    enable integer not null default 1,
    expires_at integer,
    create_at integer not null,
    update_at integer
  )`,
  `create index applications_tenant_id_id on applications (tenant_id, id)`,
  `create table device_certs (
    device_int_id integer not null,
    cert_int_id integer not null,
    create_at integer not null,
    primary key (device_int_id, cert_int_id)
  )`,
  `create index device_certs_cert_int_id on device_certs (cert_int_id)`,
];

const tables = ["device_certs", "applications", "group_devices", "groups"];

/** 0002: groups, application keys, certificate bindings. */
export const management: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of ddl) await sql.raw(statement).execute(db);
  },
  async down(db: Kysely<unknown>) {
    for (const table of tables) await sql.raw(`drop table ${table}`).execute(db);
  },
};
