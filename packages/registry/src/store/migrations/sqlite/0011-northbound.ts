import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0011: northbound (docs/northbound.md).
 *
 * `northbound_events`: the outbox — one row per event (uplink, decoded values, online/offline, command result,
 * alert opened/closed), written in the transaction of the write it reports; its id is the feed's event id (ids
 * commit in order: see `appendEvents`). Webhook deliveries, the NATS publisher and the live stream read it after
 * their own cursors; rows older than IOT_OUTBOX_RETENTION_HOURS are deleted.
 *
 * `webhooks`: a tenant's webhooks; `cursor` is the id of the last event it went through (deliveries resume there
 * after a restart); `lease_*` lets one central node at a time deliver one webhook.
 *
 * `webhook_deliveries`: the last status of each delivery (one row per webhook and event, updated per attempt).
 */
const ddl = [
  `create table northbound_events (
    id integer primary key autoincrement,
    tenant_id text not null,
    device_int_id integer,
    type text not null,
    event_time integer not null,
    data text not null,
    create_at integer not null
  )`,
  `create index northbound_events_tenant_id_id on northbound_events (tenant_id, id)`,
  `create index northbound_events_create_at on northbound_events (create_at)`,
  `create table webhooks (
    id integer primary key autoincrement,
    tenant_id text not null,
    webhook_name text not null,
    url text not null,
    event_types text not null,
    product_ids text,
    device_ids text,
    secret text not null,
    enabled integer not null,
    disabled_reason text,
    failing_since integer,
    cursor integer not null,
    lease_owner text,
    lease_until integer,
    create_at integer not null,
    update_at integer
  )`,
  `create index webhooks_tenant_id_id on webhooks (tenant_id, id)`,
  `create table webhook_deliveries (
    id integer primary key autoincrement,
    tenant_id text not null,
    webhook_int_id integer not null,
    delivery_id text not null unique,
    event_id integer,
    event_type text not null,
    device_id text,
    status text not null,
    attempts integer not null,
    http_status integer,
    error text,
    create_at integer not null,
    update_at integer not null
  )`,
  `create index webhook_deliveries_webhook_int_id_id on webhook_deliveries (webhook_int_id, id)`,
  `create index webhook_deliveries_create_at on webhook_deliveries (create_at)`,
];

/** 0011: the northbound outbox, webhooks and their deliveries. */
export const northbound: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of ddl) await sql.raw(statement).execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop table webhook_deliveries`.execute(db);
    await sql`drop table webhooks`.execute(db);
    await sql`drop table northbound_events`.execute(db);
  },
};
