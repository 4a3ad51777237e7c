import { sql, type Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * 0007: the data pipeline's time series. `point_values` holds each accepted data point value of an uplink and
 * `metric_values` each formula metric computed from one, with the id of the device event (uplink) it came from.
 * Each event yields its values once: events are unique by msg_key, and the pipeline commits how far it got with the
 * values, so no unique index is paid for on every insert. Both are read by device and point (or metric) over a time
 * range. History alerts name the data point and rule they watch, so one alert per device, point and rule stays open.
 */
export const series: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of [
      sql`create table point_values (
        id integer primary key autoincrement,
        tenant_id text not null,
        device_int_id integer not null,
        data_point_int_id integer not null,
        event_id integer not null,
        value_time integer not null,
        received_at integer not null,
        num_value real,
        text_value text
      )`,
      sql`create index point_values_device_point_time on point_values (device_int_id, data_point_int_id, value_time)`,
      sql`create table metric_values (
        id integer primary key autoincrement,
        tenant_id text not null,
        device_int_id integer not null,
        metric_int_id integer not null,
        event_id integer not null,
        value_time integer not null,
        value real not null
      )`,
      sql`create index metric_values_device_metric_time on metric_values (device_int_id, metric_int_id, value_time)`,
      sql`alter table history_alerts add column data_point_int_id integer`,
      sql`alter table history_alerts add column rule text`,
      sql`create index history_alerts_open on history_alerts (device_int_id, data_point_int_id, rule, end_time)`,
    ])
      await statement.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index history_alerts_open`.execute(db);
    await sql`alter table history_alerts drop column rule`.execute(db);
    await sql`alter table history_alerts drop column data_point_int_id`.execute(db);
    await sql`drop table metric_values`.execute(db);
    await sql`drop table point_values`.execute(db);
  },
};
