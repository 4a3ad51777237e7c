import { z } from "zod";
import type { Metric, Series } from "@iot/registry";
import type { View } from "../view.js";
import { f, type RecordOf, type Shape, type ShapeOf } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

const written = z.object({
  aggregateType: f.intN,
  chartType: f.intN,
  createAt: f.date,
  dataPointIntID: f.intN,
  expressions: f.strN,
  id: f.int,
  isShow: f.intN,
  metricName: f.str,
  productItemIntID: f.int,
  remark: f.strN,
  updateAt: f.date,
});
const edited = written.extend({ metricType: f.int, expressionsLabel: f.strN, dataStreamIntID: f.intN });

/** Metric records by shape (`edit` is the edit answer), the same in both forms; and a series. */
export const metricRecords = {
  list: z.object({ dataPointName: f.strN, id: f.int, metricName: f.str, metricType: f.int, metricTypeLabel: f.label }),
  write: written,
  edit: edited,
  detail: edited.extend({
    metricTypeLabel: f.label,
    dataPointName: f.strN,
    aggregateTypeLabel: f.label,
    aggregateData: f.strN,
    aggregateDataLabel: f.strN,
    chartTypeLabel: f.label,
    productID: f.str,
    createUser: f.strN,
  }),
} satisfies Record<Shape | "edit", z.ZodType>;

/** A series: times (dates) and their values. */
export const seriesRecord = z.object({ time: z.array(f.date), value: z.array(f.num) });

/**
 * Metric record, the same in Form 1 and Form 2 (labels follow the caller's
 * language):
 * - `list`: exactly the spec's list fields;
 * - `detail`: every Metric field of the spec with labels, the data point's
 *   name, the product, the stream and the creator;
 * - `write`: exactly the spec's create answer;
 * - `edit`: the create answer plus the other stored fields an edit may change
 *   (`metricType`, `expressionsLabel`, `dataStreamIntID`), no labels or joined names.
 */
export function metric<S extends Shape | "edit">(m: Metric, shape: S, view: View): ShapeOf<typeof metricRecords, S>;
export function metric(m: Metric, shape: Shape | "edit", view: View): RecordOf<typeof metricRecords> {
  const metricTypeLabel = label("metricType", m.metricType, view.lang);
  if (shape === "list")
    return {
      dataPointName: m.dataPointName,
      id: m.id,
      metricName: m.metricName,
      metricType: m.metricType,
      metricTypeLabel,
    };
  const written = {
    aggregateType: m.aggregateType,
    chartType: m.chartType,
    createAt: formatDate(m.createAt),
    dataPointIntID: m.dataPointIntId,
    expressions: m.expressions,
    id: m.id,
    isShow: m.isShow,
    metricName: m.metricName,
    productItemIntID: m.productItemIntId,
    remark: m.remark,
    updateAt: formatDate(m.updateAt),
  };
  if (shape === "write") return written;
  const edited = {
    ...written,
    metricType: m.metricType,
    expressionsLabel: m.expressionsLabel,
    dataStreamIntID: m.dataStreamIntId,
  };
  if (shape === "edit") return edited;
  return {
    ...edited,
    metricTypeLabel,
    dataPointName: m.dataPointName,
    aggregateTypeLabel: label("aggregateType", m.aggregateType, view.lang),
    aggregateData: m.aggregateData,
    /** The spec lists no codes for aggregateData, so its text is the value itself (null while unset). */
    aggregateDataLabel: m.aggregateData,
    chartTypeLabel: label("chartType", m.chartType, view.lang),
    productID: m.productId,
    createUser: m.createUser,
  };
}

/** A series with its times as the spec's dates. */
export function series(s: Series): z.output<typeof seriesRecord> {
  return { time: s.time.map((t) => formatDate(t)), value: s.value };
}
