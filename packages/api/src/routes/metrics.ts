/**
 * Metrics: list, detail, create, edit, delete.
 *
 * `metricType` may be omitted on create: it is 2 (aggregate) when the body
 * has an `aggregateType` and no (or blank) `expressions`, else 1 (formula).
 * Omitted `chartType` is 1 (line), `isShow` 0, `productItemIntID` 0.
 * `expressions` is checked by the registry's arithmetic parser: a bad one is
 * FORM_INVALID naming `expressions` with the position of the error.
 */
import { z } from "zod";
import {
  AGGREGATE_TYPES,
  CHART_TYPES,
  createMetric,
  deleteMetrics,
  getMetric,
  listMetrics,
  updateMetric,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { metric } from "../forms/metrics.js";
import { codeField, idParam, idsFrom, idsQuery, intField, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { readsFor } from "../middleware/read-your-writes.js";
import { listOf } from "../forms/common.js";
import { metricRecords } from "../forms/metrics.js";

const text = (max: number) => z.string().max(max, `at most ${max} characters`);
/** An optional value that "" and null unset. */
const unsettable = <T extends z.ZodType>(s: T) =>
  z
    .union([s, z.literal(""), z.null()])
    .optional()
    .transform((v) => (v === "" ? null : (v as z.output<T> | null | undefined)));

const fields = {
  metricName: z.string().trim().min(1, "required").max(50, "at most 50 characters"),
  dataPointIntID: intField,
  metricType: codeField([1, 2]).optional(),
  chartType: unsettable(codeField(CHART_TYPES)),
  isShow: codeField([0, 1]).optional(),
  aggregateType: unsettable(codeField(AGGREGATE_TYPES)),
  /** Length and syntax are the parser's (FORM_INVALID with the position). */
  expressions: z.string().nullish(),
  expressionsLabel: text(500).nullish(),
  remark: text(300).nullish(),
  productItemIntID: intField.refine((v) => v >= 0, "must be 0 or a positive integer").optional(),
  dataStreamIntID: unsettable(intField),
};

type Body = { [K in keyof typeof fields]?: z.output<(typeof fields)[K]> };
const toDomain = ({ metricName, dataPointIntID, productItemIntID, dataStreamIntID, ...rest }: Body) => ({
  ...rest,
  metricName,
  dataPointIntId: dataPointIntID,
  productItemIntId: productItemIntID,
  dataStreamIntId: dataStreamIntID,
});

const createBody = z
  .strictObject(fields)
  .transform((b) => ({ ...toDomain(b), metricName: b.metricName, dataPointIntId: b.dataPointIntID }));
/** Edits carry the whole record; read-only members (id, labels, names, productID, dates) are dropped. */
const editBody = z
  .object({ ...fields, metricName: fields.metricName.optional(), dataPointIntID: fields.dataPointIntID.optional() })
  .transform(toDomain);

/** Metric routes. */
export function metricRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Metrics")
    .get(
      "/metrics",
      {
        summary: "List metrics, optionally of one product",
        response: listOf(metricRecords.list),
        query: listQuery({ productID: z.string().optional() }),
      },
      async (c, { query }) =>
        list(
          await readsFor(deps, c, (db) =>
            listMetrics(db, c.get("caller"), pageFrom(query), { productId: query.productID || undefined }),
          ),
          (m) => metric(m, "list", c.get("view")),
        ),
    )
    .get("/metrics/:id", { summary: "Metric detail", response: metricRecords.detail }, async (c) =>
      metric(await getMetric(db, c.get("caller"), idParam(c)), "detail", c.get("view")),
    )
    .post(
      "/metrics",
      {
        summary: "Create a formula (1) or aggregate (2) metric of a numeric data point",
        body: createBody,
        response: metricRecords.write,
      },
      async (c, { body }) => metric(await createMetric(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put(
      "/metrics/:id",
      { summary: "Edit a metric (its product is fixed)", body: editBody, response: metricRecords.edit },
      async (c, { body }) => metric(await updateMetric(db, c.get("caller"), idParam(c), body), "edit", c.get("view")),
    )
    .delete("/metrics", { summary: "Delete metrics", query: idsQuery }, async (c, { query }) => {
      await deleteMetrics(db, c.get("caller"), idsFrom(query));
    }).app;
}
