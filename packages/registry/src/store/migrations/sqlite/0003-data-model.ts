import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * sqlite DDL for the data model and access rules: data points, data streams
 * (with their points), metrics, product resources, app templates, the latest
 * value of each device's data points, certificates, policies and their
 * bindings, proxy subscriptions and historical alerts.
 */
const ddl = [
  `create table data_points (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    product_int_id integer not null,
    data_point_id text not null,
    data_point_name text not null,
    point_data_type integer not null,
    data_trans_type integer not null,
    unit_name text,
    unit_symbol text,
    upper_limit real,
    lower_limit real,
    data_step real,
    binary_size integer,
    fault_value text,
    is_discard integer,
    is_location_type integer,
    location_type integer,
    enum text,
    register_addr text,
    detail text,
    create_at integer not null,
    update_at integer,
    unique (product_int_id, data_point_id)
  )`,
  `create index data_points_tenant_id_id on data_points (tenant_id, id)`,
  `create table data_streams (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    product_int_id integer not null,
    stream_name text not null,
    stream_type integer not null,
    stream_data_type integer not null,
    topic text not null,
    detail text,
    create_at integer not null,
    update_at integer,
    unique (product_int_id, topic)
  )`,
  `create index data_streams_tenant_id_id on data_streams (tenant_id, id)`,
  `create table data_stream_points (
    data_stream_int_id integer not null,
    data_point_int_id integer not null,
    position integer not null,
    primary key (data_stream_int_id, data_point_int_id)
  )`,
  `create index data_stream_points_point on data_stream_points (data_point_int_id)`,
  `create table metrics (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    product_int_id integer not null,
    metric_name text not null,
    metric_type integer not null,
    data_point_int_id integer not null,
    data_stream_int_id integer,
    aggregate_type integer,
    aggregate_data text,
    expressions text,
    expressions_label text,
    chart_type integer,
    is_show integer not null default 0,
    product_item_int_id integer not null default 0,
    remark text,
    create_at integer not null,
    update_at integer
  )`,
  `create index metrics_tenant_id_id on metrics (tenant_id, id)`,
  `create index metrics_data_point on metrics (data_point_int_id)`,
  `create table product_resources (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    product_int_id integer not null,
    code_value text not null,
    data_point_int_id integer not null,
    item_name text,
    product_item_int_id integer not null default 0,
    create_at integer not null,
    update_at integer
  )`,
  `create index product_resources_tenant_id_id on product_resources (tenant_id, id)`,
  `create table app_templates (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    product_int_id integer not null,
    template_name text not null,
    template_type integer not null,
    product_item_int_id integer not null default 0,
    data_point_int_id integer,
    data_stream_int_id integer,
    data_trans_type integer,
    topic text,
    enum text,
    places text,
    instance_id text,
    item_id text,
    item_name text,
    item_operations text,
    object_id text,
    default_values text,
    create_at integer not null,
    update_at integer
  )`,
  `create index app_templates_tenant_id_id on app_templates (tenant_id, id)`,
  `create table device_point_values (
    device_int_id integer not null,
    data_point_int_id integer not null,
    value text,
    update_at integer not null,
    primary key (device_int_id, data_point_int_id)
  )`,
  `create table certs (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    name text not null,
    enable integer not null default 1,
    cn text not null unique,
    cert_pem text not null,
    key_pem text not null,
    fingerprint text not null unique,
    create_at integer not null,
    update_at integer
  )`,
  `create index certs_tenant_id_id on certs (tenant_id, id)`,
  `create table policies (
    id integer primary key autoincrement,
    tenant_id text not null,
    user_int_id integer not null,
    name text not null,
    topic text not null,
    access integer not null,
    allow integer not null,
    description text,
    create_at integer not null,
    update_at integer
  )`,
  `create index policies_tenant_id_id on policies (tenant_id, id)`,
  `create table device_policies (
    device_int_id integer not null,
    policy_int_id integer not null,
    create_at integer not null,
    primary key (device_int_id, policy_int_id)
  )`,
  `create index device_policies_policy on device_policies (policy_int_id)`,
  `create table proxy_subscriptions (
    id integer primary key autoincrement,
    tenant_id text not null,
    device_int_id integer not null,
    topic text not null,
    qos integer not null default 1,
    create_at integer not null,
    update_at integer,
    unique (device_int_id, topic)
  )`,
  `create table history_alerts (
    id integer primary key autoincrement,
    tenant_id text not null,
    device_int_id integer not null,
    alert_name text not null,
    alert_content text,
    alert_detail text,
    alert_severity integer not null default 1,
    alert_times integer not null default 1,
    start_time integer not null,
    end_time integer,
    create_at integer not null,
    update_at integer
  )`,
  `create index history_alerts_tenant_id_id on history_alerts (tenant_id, id)`,
];

const tables = [
  "history_alerts",
  "proxy_subscriptions",
  "device_policies",
  "policies",
  "certs",
  "device_point_values",
  "app_templates",
  "product_resources",
  "metrics",
  "data_stream_points",
  "data_streams",
  "data_points",
];

/** 0003: data model, certificates, policies, alerts. */
export const dataModel: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of ddl) await sql.raw(statement).execute(db);
  },
  async down(db: Kysely<unknown>) {
    for (const table of tables) await sql.raw(`drop table ${table}`).execute(db);
  },
};
