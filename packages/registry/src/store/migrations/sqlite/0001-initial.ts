import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * SQLite DDL of every table in `schema.ts`. Ids are `integer primary key
 * autoincrement` (never reused after a delete), times are epoch-ms integers,
 * JSON columns are text, the uplink payload is a blob. References between
 * rows are checked by the domain code (it must name the referencing kind in
 * REFERENCED_ERROR anyway), so there are no foreign keys here.
 */
const ddl = [
  `create table settings (
    key text primary key,
    value text not null
  )`,
  `create table tenants (
    id integer primary key autoincrement,
    tenant_id text not null unique,
    tenant_name text not null,
    enable integer not null default 1,
    create_at integer not null,
    update_at integer
  )`,
  `create table users (
    id integer primary key autoincrement,
    tenant_id text not null,
    username text not null unique,
    email text unique,
    password_hash text not null,
    role text not null,
    service_admin integer not null default 0,
    enable integer not null default 1,
    create_at integer not null,
    update_at integer
  )`,
  `create index users_tenant_id_id on users (tenant_id, id)`,
  `create table products (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    product_id text not null,
    product_name text not null,
    description text,
    cloud_protocol integer not null,
    create_at integer not null,
    update_at integer,
    unique (tenant_id, product_id)
  )`,
  `create table devices (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    product_int_id integer not null,
    device_id text not null,
    device_name text not null,
    device_username text not null unique,
    token text not null,
    auth_type integer not null,
    blocked integer not null default 0,
    device_type integer not null,
    up_link_system integer,
    gateway integer,
    parent_device integer,
    carrier integer,
    physical_network integer,
    device_status integer not null default 0,
    imei text,
    imsi text,
    auto_sub integer,
    mod_bus_index integer,
    latitude real,
    longitude real,
    location text,
    lora text,
    manufacturer text,
    serial_number text,
    soft_version text,
    hardware_version text,
    description text,
    device_console_ip text,
    device_console_username text,
    device_console_port integer,
    meta_data text,
    scopes text,
    gateway_protocol integer,
    up_link_network integer,
    up_link_protocol integer,
    mac text,
    client_ip text,
    connected_at integer,
    keep_alive integer,
    create_at integer not null,
    update_at integer,
    unique (tenant_id, device_id)
  )`,
  `create index devices_tenant_id_id on devices (tenant_id, id)`,
  `create index devices_product_int_id on devices (product_int_id)`,
  `create index devices_gateway on devices (gateway)`,
  `create index devices_parent_device on devices (parent_device)`,
  `create table device_events (
    id integer primary key autoincrement,
    tenant_id text not null,
    device_int_id integer not null,
    gateway_int_id integer,
    topic text not null,
    payload blob not null,
    ip text,
    qos integer not null,
    msg_time integer not null,
    create_at integer not null,
    msg_key text not null unique
  )`,
  `create index device_events_device_int_id_id on device_events (device_int_id, id)`,
  `create index device_events_tenant_id_id on device_events (tenant_id, id)`,
  `create table connect_logs (
    id integer primary key autoincrement,
    tenant_id text,
    device_int_id integer,
    device_id text,
    device_name text,
    connect_status integer not null,
    ip text,
    keep_alive integer,
    session_id text,
    reason text,
    create_at integer not null,
    update_at integer
  )`,
  `create index connect_logs_tenant_id_id on connect_logs (tenant_id, id)`,
  `create index connect_logs_device_int_id_id on connect_logs (device_int_id, id)`,
  `create table control_logs (
    id integer primary key autoincrement,
    tenant_id text not null,
    device_int_id integer not null,
    group_int_id integer,
    topic text,
    payload text not null,
    qos integer not null,
    publish_status integer not null,
    user_int_id integer,
    publish_user text,
    expires_at integer,
    create_at integer not null,
    update_at integer
  )`,
  `create index control_logs_tenant_id_id on control_logs (tenant_id, id)`,
  `create index control_logs_device_int_id_id on control_logs (device_int_id, id)`,
];

const tables = ["control_logs", "connect_logs", "device_events", "devices", "products", "users", "tenants", "settings"];

/** 0001: the initial SQLite schema. */
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of ddl) await sql.raw(statement).execute(db);
  },
  async down(db: Kysely<unknown>) {
    for (const table of tables) await sql.raw(`drop table ${table}`).execute(db);
  },
};
