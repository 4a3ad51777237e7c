/**
 * Data points: list, detail, create, edit, delete — and, on the same paths,
 * data stream writes, because the spec documents stream create/edit/delete
 * on the data point paths ("Data points, data streams, …", note under the table).
 *
 * How the two are told apart:
 * - `POST /data_points` and `PUT /data_points/{id}` whose JSON body has a
 *   `streamName` member (whatever its value) are data stream writes: the body
 *   is validated as a stream, `{id}` is a data stream id, and the answer is a
 *   stream record. A data point record never has `streamName`, so no data
 *   point write is taken for a stream write. Every other body is a data point.
 * - `DELETE /data_points?ids=` deletes data points only. Its ids carry no
 *   kind, so the path cannot serve both resources without guessing; streams
 *   are deleted with `DELETE /data_streams?ids=`. A client that sends a
 *   stream id here names the data point of that id: it is deleted only when
 *   no stream or metric uses it (else REFERENCED_ERROR naming `dataStream`
 *   or `metric`), and the stream stays.
 *
 * A gateway product (stream types 3 and 4) is a product with at least one
 * gateway, i.e. a device of deviceType 2 (see `isGatewayProduct`).
 */
import { z } from "zod";
import {
  createDataPoint,
  createDataStream,
  deleteDataPoints,
  getDataPoint,
  listDataPoints,
  updateDataPoint,
  updateDataStream,
  POINT_DATA_TYPES,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { dataPoint } from "../forms/data-points.js";
import { dataStream } from "../forms/data-streams.js";
import {
  codeField,
  floatField,
  idParam,
  idsFrom,
  idsQuery,
  intField,
  listQuery,
  pageFrom,
  jsonArrayField,
} from "../params.js";
import { ApiRouter } from "../router.js";
import { streamCreateBody, streamEditBody } from "./data-streams.js";
import { listOf } from "../forms/common.js";
import { dataPointRecords } from "../forms/data-points.js";
import { dataStreamRecords } from "../forms/data-streams.js";

const text = (max: number) => z.string().trim().max(max, `at most ${max} characters`);
/** Optional numbers: a number, a numeric string, or "" / null to unset. */
const unsettable = <T extends z.ZodType<number>>(s: T) =>
  z
    .union([s, z.literal(""), z.null()])
    .optional()
    .transform((v) => (v === "" ? null : v));
const MAX_ENUM_JSON = 10_000;

/** `enum`: a JSON array, or a string holding one. */
const enumField = jsonArrayField(MAX_ENUM_JSON);

const required = {
  dataPointName: text(50).min(1, "required"),
  dataPointID: text(50)
    .min(1, "required")
    .regex(/^[\w./-]+$/, "letters, digits, _ . / - only"),
  pointDataType: codeField(POINT_DATA_TYPES),
  dataTransType: codeField([1, 2, 3]),
};
/** Code sets of the small enumerations are the registry's rules (FORM_INVALID naming the field). */
const optional = {
  productIntID: intField.optional(),
  productID: text(50).min(1, "required").optional(),
  unitName: text(50).nullish(),
  unitSymbol: text(20).nullish(),
  upperLimit: unsettable(floatField),
  lowerLimit: unsettable(floatField),
  dataStep: unsettable(floatField),
  enum: enumField,
  isLocationType: unsettable(intField),
  locationType: unsettable(intField),
  binarySize: unsettable(intField),
  faultValue: text(100).nullish(),
  isDiscard: unsettable(intField),
  registerAddr: text(50).nullish(),
  detail: text(300).nullish(),
};

const toDomain = <
  T extends { productIntID?: number | undefined; productID?: string | undefined; dataPointID?: string | undefined },
>({
  productIntID,
  productID,
  dataPointID,
  ...rest
}: T) => ({
  ...rest,
  productIntId: productIntID,
  productId: productID,
  dataPointId: dataPointID,
});

const pointCreateBody = z
  .strictObject({ ...required, ...optional })
  .transform((b) => ({ ...toDomain(b), dataPointId: b.dataPointID }));
/**
 * Edits carry the whole record; read-only members (id, labels, productName, dates) are dropped, a product reference is
 * only compared.
 */
const pointEditBody = z
  .object({
    ...optional,
    dataPointName: required.dataPointName.optional(),
    dataPointID: required.dataPointID.optional(),
    pointDataType: required.pointDataType.optional(),
    dataTransType: required.dataTransType.optional(),
  })
  .transform(toDomain);

const jsonSchema = (s: z.ZodType) => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
};

/**
 * A body that is a data stream write when it has `streamName`, else a data point write; issues keep their field paths.
 */
function pointOrStream<P extends z.ZodType, S extends z.ZodType>(point: P, stream: S) {
  return z
    .unknown()
    .transform((raw, ctx) => {
      const isStream = typeof raw === "object" && raw !== null && !Array.isArray(raw) && "streamName" in raw;
      const r = (isStream ? stream : point).safeParse(raw);
      if (!r.success) {
        for (const issue of r.error.issues)
          if (issue.code === "unrecognized_keys")
            for (const key of issue.keys)
              ctx.addIssue({ code: "custom", message: "unknown field", path: [...issue.path, key] });
          else ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
        return z.NEVER;
      }
      return isStream
        ? { kind: "stream" as const, stream: r.data as z.output<S> }
        : { kind: "point" as const, point: r.data as z.output<P> };
    })
    .meta({
      description: "A data point, or a data stream when the body has streamName",
      anyOf: [jsonSchema(point), jsonSchema(stream)],
    });
}

/** Data point routes (and the spec's data stream writes on them, see the file comment). */
export function dataPointRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Data points")
    .get(
      "/data_points",
      {
        summary: "List data points, optionally of one product",
        response: listOf(dataPointRecords.list),
        query: listQuery({ productID: z.string().optional() }),
      },
      async (c, { query }) =>
        list(
          await listDataPoints(db, c.get("caller"), pageFrom(query), { productId: query.productID || undefined }),
          (p) => dataPoint(p, "list", c.get("view")),
        ),
    )
    .get("/data_points/:id", { summary: "Data point detail", response: dataPointRecords.detail }, async (c) =>
      dataPoint(await getDataPoint(db, c.get("caller"), idParam(c)), "detail", c.get("view")),
    )
    .post(
      "/data_points",
      {
        summary: "Create a data point, or a data stream when the body has streamName",
        body: pointOrStream(pointCreateBody, streamCreateBody),
        response: z.union([dataPointRecords.write, dataStreamRecords.write]),
      },
      async (c, { body }) =>
        body.kind === "stream"
          ? dataStream(await createDataStream(db, c.get("caller"), body.stream), "write", c.get("view"))
          : dataPoint(await createDataPoint(db, c.get("caller"), body.point), "write", c.get("view")),
    )
    .put(
      "/data_points/:id",
      {
        summary: "Edit a data point, or the data stream {id} when the body has streamName",
        body: pointOrStream(pointEditBody, streamEditBody),
        response: z.union([dataPointRecords.write, dataStreamRecords.write]),
      },
      async (c, { body }) =>
        body.kind === "stream"
          ? dataStream(await updateDataStream(db, c.get("caller"), idParam(c), body.stream), "write", c.get("view"))
          : dataPoint(await updateDataPoint(db, c.get("caller"), idParam(c), body.point), "write", c.get("view")),
    )
    .delete(
      "/data_points",
      {
        summary:
          "Delete data points only (REFERENCED_ERROR while a stream or metric uses one); streams: DELETE /data_streams",
        query: idsQuery,
      },
      async (c, { query }) => {
        await deleteDataPoints(db, c.get("caller"), idsFrom(query));
      },
    ).app;
}
