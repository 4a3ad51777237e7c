import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../store/schema.js";
import type { MetricValuesTable, PointValuesTable } from "../store/schema-data-model.js";

/** One accepted value of one uplink, as stored in point_values. */
export type PointValueRow = Omit<PointValuesTable, "id">;

/** One formula metric value of one uplink, as stored in metric_values. */
export type MetricValueRow = Omit<MetricValuesTable, "id">;

/** Rows per INSERT: 8 columns a row stays far below either engine's bound-parameter limit. */
const ROWS_PER_STATEMENT = 500;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

/**
 * Stores values. The pipeline hands each event's values over once (its cursor is committed with them), so a plain
 * insert suffices: no unique index is paid for on the hottest table.
 */
export async function storePointValues(
  tx: Transaction<Database> | Kysely<Database>,
  rows: readonly PointValueRow[],
): Promise<void> {
  for (const part of chunks(rows)) await tx.insertInto("pointValues").values(part).execute();
}

/** Stores formula metric values. */
export async function storeMetricValues(
  tx: Transaction<Database> | Kysely<Database>,
  rows: readonly MetricValueRow[],
): Promise<void> {
  for (const part of chunks(rows)) await tx.insertInto("metricValues").values(part).execute();
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
