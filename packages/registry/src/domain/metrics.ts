import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database, MetricsTable } from "../store/schema.js";
import { fail } from "../errors.js";
import { expressionProblem } from "../pipeline/expression.js";
import type { Caller } from "./caller.js";
import { NUMERIC_POINT_TYPES } from "./data-points.js";
import { lockTenant } from "./locks.js";
import { paginate, type ListResult, type Page } from "./list.js";

/** `metricType` 1: a formula over the data point's value (`expressions`). */
export const FORMULA_METRIC = 1;
/** `metricType` 2: an aggregate of the data point's values (`aggregateType`). */
export const AGGREGATE_METRIC = 2;
/** 1 maximum, 2 minimum, 3 average, 4 accumulated. */
export const AGGREGATE_TYPES: readonly number[] = [1, 2, 3, 4];
/** 1 line chart, 2 bar chart. */
export const CHART_TYPES: readonly number[] = [1, 2];

/**
 * A metric row with its product's string id, its data point's name (null if the point is gone) and its creator's name.
 */
export type Metric = Selectable<MetricsTable> & {
  productId: string;
  dataPointName: string | null;
  createUser: string | null;
};

/** The settable fields of a metric, null meaning unset. */
export interface MetricFields {
  metricName: string;
  /** 1 formula, 2 aggregate. */
  metricType: number;
  dataPointIntId: number;
  dataStreamIntId: number | null;
  aggregateType: number | null;
  expressions: string | null;
  expressionsLabel: string | null;
  /** 1 line, 2 bar. */
  chartType: number | null;
  /** Show on the device detail page: 0 no, 1 yes. */
  isShow: number;
  productItemIntId: number;
  remark: string | null;
}

type Optional<T> = { [K in keyof T]?: T[K] | undefined };

/**
 * What a caller sends to create a metric. Omitted: metricType is inferred
 * ({@link inferMetricType}), chartType 1 (line), isShow 0, productItemIntId 0.
 */
export type MetricInput = Pick<MetricFields, "metricName" | "dataPointIntId"> &
  Optional<Omit<MetricFields, "metricName" | "dataPointIntId">>;
/** An edit: any field; the merged record must pass the create rules again. */
export type MetricEdit = Optional<MetricFields>;

const blank = (s: string | null | undefined) => s === undefined || s === null || s.trim() === "";

/**
 * The metricType of a create that does not send one: 2 (aggregate) when an
 * aggregateType is sent and no expressions, else 1 (formula).
 */
export function inferMetricType(input: {
  aggregateType?: number | null | undefined;
  expressions?: string | null | undefined;
}): number {
  return input.aggregateType !== undefined && input.aggregateType !== null && blank(input.expressions)
    ? AGGREGATE_METRIC
    : FORMULA_METRIC;
}

/**
 * The rule violations of a metric by field (empty when valid): codes of
 * metricType, aggregateType, chartType and isShow; a formula needs
 * `expressions`, an aggregate an `aggregateType`; expressions, when set, must
 * parse (the message gives the position of the error).
 */
export function metricProblems(m: MetricFields): Record<string, string> {
  const e: Record<string, string> = {};
  if (blank(m.metricName)) e.metricName = "required";
  if (m.metricType !== FORMULA_METRIC && m.metricType !== AGGREGATE_METRIC)
    e.metricType = "must be 1 (formula) or 2 (aggregate)";
  if (m.aggregateType !== null && !AGGREGATE_TYPES.includes(m.aggregateType))
    e.aggregateType = "must be one of 1, 2, 3, 4";
  else if (m.aggregateType === null && m.metricType === AGGREGATE_METRIC)
    e.aggregateType = "required for an aggregate metric (metricType 2)";
  if (m.expressions !== null) {
    const problem = expressionProblem(m.expressions);
    if (problem) e.expressions = problem;
  } else if (m.metricType === FORMULA_METRIC) e.expressions = "required for a formula metric (metricType 1)";
  if (m.chartType !== null && !CHART_TYPES.includes(m.chartType)) e.chartType = "must be 1 (line) or 2 (bar)";
  if (m.isShow !== 0 && m.isShow !== 1) e.isShow = "must be 0 or 1";
  if (!Number.isInteger(m.productItemIntId) || m.productItemIntId < 0)
    e.productItemIntID = "must be 0 or a positive integer";
  return e;
}

function selectMetrics(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("metrics as m")
    .innerJoin("products as p", "p.id", "m.productIntId")
    .leftJoin("dataPoints as dp", "dp.id", "m.dataPointIntId")
    .leftJoin("users as u", "u.id", "m.userIntId")
    .selectAll("m")
    .select(["p.productId as productId", "dp.dataPointName as dataPointName", "u.username as createUser"])
    .where("m.tenantId", "=", tenantId);
}

/**
 * The caller's numeric data point `id`: FORM_INVALID naming dataPointIntID when unknown, foreign, of another product or
 * not numeric.
 */
async function numericPoint(tx: Transaction<Database>, caller: Caller, id: number, productIntId?: number) {
  const point = await tx
    .selectFrom("dataPoints")
    .select(["id", "productIntId", "pointDataType"])
    .where("tenantId", "=", caller.tenantId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!point) throw fail.form({ dataPointIntID: "no such data point" });
  if (productIntId !== undefined && point.productIntId !== productIntId)
    throw fail.form({ dataPointIntID: "not a data point of the metric's product" });
  if (!NUMERIC_POINT_TYPES.includes(point.pointDataType))
    throw fail.form({ dataPointIntID: `must be a numeric data point (types ${NUMERIC_POINT_TYPES.join(", ")})` });
  return point;
}

/** Checks the fields, then that a data stream, when set, is the caller's and of the metric's product. */
async function check(tx: Transaction<Database>, caller: Caller, m: MetricFields, productIntId: number): Promise<void> {
  const problems = metricProblems(m);
  if (Object.keys(problems).length > 0) throw fail.form(problems);
  if (m.dataStreamIntId === null) return;
  const stream = await tx
    .selectFrom("dataStreams")
    .select("id")
    .where("tenantId", "=", caller.tenantId)
    .where("productIntId", "=", productIntId)
    .where("id", "=", m.dataStreamIntId)
    .executeTakeFirst();
  if (!stream) throw fail.form({ dataStreamIntID: "not a data stream of the metric's product" });
}

const text = (s: string | null | undefined) => (s === undefined ? undefined : blank(s) ? null : s!.trim());

/**
 * The fields an input or edit sets (undefined members left out; blank text
 * unsets). Expressions are kept as sent, so error positions match the caller's text.
 */
function present(f: Optional<MetricFields>): Partial<MetricFields> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) {
    if (v === undefined) continue;
    if (typeof v !== "string" || k === "metricName") out[k] = v;
    else out[k] = k === "expressions" ? (blank(v) ? null : v) : text(v);
  }
  return out;
}

/**
 * Creates a metric of the data point's product. The data point must be one
 * of the caller's numeric points (FORM_INVALID naming dataPointIntID);
 * every rule of {@link metricProblems} applies.
 */
export async function createMetric(
  db: Kysely<Database>,
  caller: Caller,
  input: MetricInput,
  now = Date.now(),
): Promise<Metric> {
  const id = await db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const point = await numericPoint(tx, caller, input.dataPointIntId);
    const m: MetricFields = {
      metricType: inferMetricType(input),
      dataStreamIntId: null,
      aggregateType: null,
      expressions: null,
      expressionsLabel: null,
      chartType: 1,
      isShow: 0,
      productItemIntId: 0,
      remark: null,
      ...present(input),
      metricName: input.metricName.trim(),
      dataPointIntId: point.id,
    };
    await check(tx, caller, m, point.productIntId);
    const row = await tx
      .insertInto("metrics")
      .values({
        ...m,
        tenantId: caller.tenantId,
        userIntId: caller.userIntId,
        productIntId: point.productIntId,
        aggregateData: null,
        createAt: now,
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  });
  return getMetric(db, caller, id);
}

/** Lists the caller's metrics, newest first, optionally of one product (its string productID). */
export async function listMetrics(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { productId?: string | undefined } = {},
): Promise<ListResult<Metric>> {
  let q = selectMetrics(db, caller.tenantId);
  if (filter.productId !== undefined) q = q.where("p.productId", "=", filter.productId);
  return paginate(q, page, "m.id");
}

/** Every metric of one of the caller's products, oldest first, optionally of one metricType (device data pages). */
export async function productMetrics(
  db: Kysely<Database>,
  caller: Caller,
  productIntId: number,
  metricType?: number,
): Promise<Metric[]> {
  let q = selectMetrics(db, caller.tenantId).where("m.productIntId", "=", productIntId);
  if (metricType !== undefined) q = q.where("m.metricType", "=", metricType);
  return q.orderBy("m.id").execute();
}

/** One metric of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getMetric(db: Kysely<Database>, caller: Caller, id: number): Promise<Metric> {
  const row = await selectMetrics(db, caller.tenantId).where("m.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("metric");
  return row;
}

const FIELDS = [
  "metricName",
  "metricType",
  "dataPointIntId",
  "dataStreamIntId",
  "aggregateType",
  "expressions",
  "expressionsLabel",
  "chartType",
  "isShow",
  "productItemIntId",
  "remark",
] as const satisfies ReadonlyArray<keyof MetricFields>;

/**
 * Edits a metric: the sent fields over the stored ones must pass the create
 * rules again. A new data point must be a numeric point of the metric's
 * product (the product is fixed). Sets updateAt.
 */
export async function updateMetric(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: MetricEdit,
  now = Date.now(),
): Promise<Metric> {
  await db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const current = await getMetric(tx, caller, id);
    if (edit.dataPointIntId !== undefined && edit.dataPointIntId !== current.dataPointIntId)
      await numericPoint(tx, caller, edit.dataPointIntId, current.productIntId);
    const merged = {
      ...(Object.fromEntries(FIELDS.map((f) => [f, current[f]])) as unknown as MetricFields),
      ...present(edit),
    };
    merged.metricName = merged.metricName.trim();
    await check(tx, caller, merged, current.productIntId);
    await tx
      .updateTable("metrics")
      .set({ ...merged, updateAt: now })
      .where("tenantId", "=", caller.tenantId)
      .where("id", "=", id)
      .execute();
  });
  return getMetric(db, caller, id);
}

/** Deletes metrics of the caller's tenant; foreign and unknown ids are ignored (nothing references a metric). */
export async function deleteMetrics(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("metrics").where("tenantId", "=", caller.tenantId).where("id", "in", ids).execute();
}
