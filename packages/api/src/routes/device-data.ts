/**
 * What a device's pages show: its console, its original data and its metric
 * data, read from the series the data pipeline stores (see the registry's device-data).
 *
 * - `GET /device_consoles/{deviceIntID}`: `{items, meta}` of the device
 *   product's app templates (paged like every list), each with `value`.
 * - `GET /original_data?deviceID=&metricType=&time_unit=&start_time=&end_time=`: `deviceID` required; the values
 *   stored by the data pipeline between `start_time` and `end_time` (`YYYY-MM-DD HH:MM:SS`, UTC; default: the
 *   `time_unit` — hour, day (default), week or month — ending at `end_time` or now), oldest first, at most 1000 a
 *   point (the newest); `metricType` (1 or 2) is accepted and does not change the answer.
 * - `GET /metrics_data?deviceID=&metricType=&time_unit=&start_time=&end_time=`: the product's metrics (only those of
 *   `metricType` when given), each with `metricData`, oldest first, at most 1000 samples: a formula metric's stored
 *   values in the window of original data (`time_unit` may also be `minute`); an aggregate metric's value per UTC
 *   bucket of `time_unit` (minute, hour, day (default), week, month) from `start_time` (default: the start of the
 *   30th bucket back, the current one included) to `end_time` (default now).
 */
import { z } from "zod";
import {
  deviceConsole,
  METRIC_TIME_UNITS,
  metricsData,
  originalData,
  TIME_UNITS,
  type MetricTimeUnit,
  type TimeUnit,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { consoleTemplate } from "../forms/app-templates.js";
import { list } from "../forms/common.js";
import { metric, series } from "../forms/metrics.js";
import { dateQuery, idParam, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { readsFor } from "../middleware/read-your-writes.js";
import { listOf } from "../forms/common.js";
import { consoleTemplateRecord } from "../forms/app-templates.js";
import { metricRecords, seriesRecord } from "../forms/metrics.js";

const deviceID = z.string({ error: "required" }).min(1, "required").max(100, "at most 100 characters");
const metricType = z.enum(["1", "2"], { error: "must be 1 or 2" }).transform(Number).optional();
const timeUnits = Object.keys(TIME_UNITS) as [TimeUnit, ...TimeUnit[]];
const timeUnit = z.enum(timeUnits, { error: `must be one of ${timeUnits.join(", ")}` }).optional();
const bucketUnits = [...METRIC_TIME_UNITS] as [MetricTimeUnit, ...MetricTimeUnit[]];
const bucketUnit = z.enum(bucketUnits, { error: `must be one of ${bucketUnits.join(", ")}` }).optional();

/** Device console, original data and metric data routes: all history, read from a read replica when there are any. */
export function deviceDataRoutes(deps: AppDeps, docs: ApiDocs) {
  return new ApiRouter(docs, "Device data")
    .get(
      "/device_consoles/:deviceIntID",
      {
        summary: "The device product's app templates with the device's current values",
        query: listQuery({}),
        response: listOf(consoleTemplateRecord),
      },
      async (c, { query }) =>
        list(
          await readsFor(deps, c, (db) =>
            deviceConsole(db, c.get("caller"), idParam(c, "deviceIntID"), pageFrom(query)),
          ),
          (t) => consoleTemplate(t, c.get("view")),
        ),
    )
    .get(
      "/original_data",
      {
        summary: "Original data of each numeric reported data point of a device",
        response: z.array(
          z.object({ dataPointIntID: z.number().int(), dataPointName: z.string(), originalData: seriesRecord }),
        ),
        query: z.object({ deviceID, metricType, time_unit: timeUnit, start_time: dateQuery, end_time: dateQuery }),
      },
      async (c, { query }) =>
        (
          await readsFor(deps, c, (db) =>
            originalData(db, c.get("caller"), query.deviceID, {
              timeUnit: query.time_unit,
              start: query.start_time,
              end: query.end_time,
            }),
          )
        ).map((o) => ({
          dataPointIntID: o.dataPointIntId,
          dataPointName: o.dataPointName,
          originalData: series(o.originalData),
        })),
    )
    .get(
      "/metrics_data",
      {
        summary: "The metrics of a device's product with their data for the device",
        response: z.array(metricRecords.detail.extend({ metricData: seriesRecord })),
        query: z.object({ deviceID, metricType, time_unit: bucketUnit, start_time: dateQuery, end_time: dateQuery }),
      },
      async (c, { query }) =>
        (
          await readsFor(deps, c, (db) =>
            metricsData(db, c.get("caller"), query.deviceID, {
              metricType: query.metricType,
              timeUnit: query.time_unit,
              start: query.start_time,
              end: query.end_time,
            }),
          )
        ).map((m) => ({ ...metric(m, "detail", c.get("view")), metricData: series(m.metricData) })),
    ).app;
}
