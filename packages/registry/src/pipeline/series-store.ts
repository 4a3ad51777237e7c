import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../store/schema.js";
import type { MetricValuesTable, PointValuesTable } from "../store/schema-data-model.js";
import { EitherEngineInsert } from "../store/multi-row-insert.js";

/** One accepted value of one uplink, as stored in point_values. */
export type PointValueRow = Omit<PointValuesTable, "id">;

/** One formula metric value of one uplink, as stored in metric_values. */
export type MetricValueRow = Omit<MetricValuesTable, "id">;

const POINT_VALUES = new EitherEngineInsert("point_values", {
  tenant_id: "text",
  device_int_id: "bigint",
  data_point_int_id: "bigint",
  event_id: "bigint",
  value_time: "bigint",
  received_at: "bigint",
  num_value: "double precision",
  text_value: "text",
});

const METRIC_VALUES = new EitherEngineInsert("metric_values", {
  tenant_id: "text",
  device_int_id: "bigint",
  metric_int_id: "bigint",
  event_id: "bigint",
  value_time: "bigint",
  value: "double precision",
});

/**
 * Stores values. The pipeline hands each event's values over once (its cursor is committed with them), so a plain
 * insert suffices: no unique index is paid for on the hottest table. The SQL text is made once per row count
 * (MultiRowInsert): kysely's query tree for a batch's 8,000 values and a statement prepared per batch cost as much
 * of the central node as SQLite's own insert (docs/performance.md, "the data pipeline").
 */
export async function storePointValues(
  tx: Transaction<Database> | Kysely<Database>,
  rows: readonly PointValueRow[],
): Promise<void> {
  const values: unknown[] = [];
  for (const r of rows)
    values.push(
      r.tenantId,
      r.deviceIntId,
      r.dataPointIntId,
      r.eventId,
      r.valueTime,
      r.receivedAt,
      r.numValue,
      r.textValue,
    );
  await POINT_VALUES.run(tx, values);
}

/** Stores formula metric values (as storePointValues). */
export async function storeMetricValues(
  tx: Transaction<Database> | Kysely<Database>,
  rows: readonly MetricValueRow[],
): Promise<void> {
  const values: unknown[] = [];
  for (const r of rows) values.push(r.tenantId, r.deviceIntId, r.metricIntId, r.eventId, r.valueTime, r.value);
  await METRIC_VALUES.run(tx, values);
}

/**
 * Keeps the latest value per device and point (device consoles, app templates): a value replaces the kept one only
 * when it is not older, so values arriving out of order leave the newest in place.
 */
export async function updateLatestValues(
  tx: Transaction<Database> | Kysely<Database>,
  rows: readonly PointValueRow[],
): Promise<void> {
  const newest = new Map<string, PointValueRow>();
  for (const r of rows) {
    const key = `${r.deviceIntId}:${r.dataPointIntId}`;
    const kept = newest.get(key);
    if (!kept || kept.valueTime <= r.valueTime) newest.set(key, r);
  }
  for (const r of newest.values()) {
    const value = r.numValue !== null ? String(r.numValue) : r.textValue;
    await tx
      .insertInto("devicePointValues")
      .values({ deviceIntId: r.deviceIntId, dataPointIntId: r.dataPointIntId, value, updateAt: r.valueTime })
      .onConflict((oc) =>
        oc
          .columns(["deviceIntId", "dataPointIntId"])
          .doUpdateSet({ value, updateAt: r.valueTime })
          .where(sql.ref("device_point_values.update_at"), "<=", r.valueTime),
      )
      .execute();
  }
}
