import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../store/schema.js";

/** One accepted value of one uplink, as stored in point_values. */
export interface PointValueRow {
  tenantId: string;
  deviceIntId: number;
  dataPointIntId: number;
  msgKey: string;
  valueTime: number;
  receivedAt: number;
  numValue: number | null;
  textValue: string | null;
}

/** One formula metric value of one uplink, as stored in metric_values. */
export interface MetricValueRow {
  tenantId: string;
  deviceIntId: number;
  metricIntId: number;
  msgKey: string;
  valueTime: number;
  value: number;
}

/** Rows per INSERT: 8 columns a row stays far below either engine's bound-parameter limit. */
const ROWS_PER_STATEMENT = 500;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

/**
 * Stores values, skipping those of an uplink whose value for that point is stored already (a replay after a
 * restart); answers the rows stored now, so rules and metrics run once per value however often it arrives.
 */
export async function storePointValues(
  tx: Transaction<Database> | Kysely<Database>,
  rows: readonly PointValueRow[],
): Promise<PointValueRow[]> {
  const stored = new Set<string>();
  for (const part of chunks(rows)) {
    const inserted = await tx
      .insertInto("pointValues")
      .values(part)
      .onConflict((oc) => oc.columns(["msgKey", "dataPointIntId"]).doNothing())
      .returning(["msgKey", "dataPointIntId"])
      .execute();
    for (const r of inserted) stored.add(`${r.msgKey}\n${r.dataPointIntId}`);
  }
  return rows.filter((r) => stored.has(`${r.msgKey}\n${r.dataPointIntId}`));
}

/** Stores formula metric values; a replayed uplink's are skipped like its point values. */
export async function storeMetricValues(
  tx: Transaction<Database> | Kysely<Database>,
  rows: readonly MetricValueRow[],
): Promise<void> {
  for (const part of chunks(rows))
    await tx
      .insertInto("metricValues")
      .values(part)
      .onConflict((oc) => oc.columns(["msgKey", "metricIntId"]).doNothing())
      .execute();
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
