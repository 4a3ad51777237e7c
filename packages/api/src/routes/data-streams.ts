import { z } from "zod";
import {
  createDataStream,
  deleteDataStreams,
  getDataStream,
  listDataStreams,
  updateDataStream,
  MAX_STREAM_TOPIC,
  STREAM_DATA_TYPES,
  STREAM_TYPES,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { list } from "../forms/common.js";
import { dataStream } from "../forms/data-streams.js";
import { codeField, idParam, idsFrom, idsQuery, intField, listQuery, pageFrom } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { dataStreamRecords } from "../forms/data-streams.js";

const name = z.string().trim().min(1, "required").max(50, "at most 50 characters");
const productID = z.string().trim().min(1, "required").max(50, "at most 50 characters");
/** Shape only; the topic rules (relative, no wildcards, unique in the product) are the registry's. */
const topic = z.string().trim().min(1, "required").max(MAX_STREAM_TOPIC, `at most ${MAX_STREAM_TOPIC} characters`);
const dataPoints = z.array(intField).max(1000, "at most 1000 data points");
const detail = z.string().max(300, "at most 300 characters").nullish();

const fields = {
  productIntID: intField.optional(),
  productID: productID.optional(),
  streamName: name,
  streamType: codeField(STREAM_TYPES),
  streamDataType: codeField(STREAM_DATA_TYPES),
  topic,
  dataPoints: dataPoints.optional(),
  detail,
};

type Fields = { [K in keyof typeof fields]?: z.output<(typeof fields)[K]> | undefined };
const toDomain = ({ productIntID, productID: productId, ...rest }: Fields) => ({
  ...rest,
  productIntId: productIntID,
  productId,
});

/**
 * Body of a stream create: `productIntID` (or `productID`), `streamName`,
 * `streamType` 1–4, `streamDataType` 1–2, `topic`, optional `dataPoints`
 * (data point ids, in order) and `detail`.
 */
export const streamCreateBody = z.strictObject(fields).transform((b) => ({
  ...toDomain(b),
  streamName: b.streamName,
  streamType: b.streamType,
  streamDataType: b.streamDataType,
  topic: b.topic,
}));

/**
 * Body of a stream edit: the record; read-only members (labels, names, dates) are dropped, a product reference is only
 * compared.
 */
export const streamEditBody = z
  .object({
    ...fields,
    streamName: name.optional(),
    streamType: fields.streamType.optional(),
    streamDataType: fields.streamDataType.optional(),
    topic: topic.optional(),
  })
  .transform(toDomain);

/**
 * Data streams: list, detail, create, edit, delete. The same writes are also
 * accepted on the data point paths (see `routes/data-points.ts`); reads and
 * deletes of streams are only here.
 */
export function dataStreamRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "Data streams")
    .get(
      "/data_streams",
      {
        summary: "List data streams, optionally of one product",
        response: listOf(dataStreamRecords.list),
        query: listQuery({ productID: z.string().optional() }),
      },
      async (c, { query }) =>
        list(
          await listDataStreams(db, c.get("caller"), pageFrom(query), { productId: query.productID || undefined }),
          (s) => dataStream(s, "list", c.get("view")),
        ),
    )
    .get(
      "/data_streams/:id",
      { summary: "Data stream detail with its data points' ids and names", response: dataStreamRecords.detail },
      async (c) => dataStream(await getDataStream(db, c.get("caller"), idParam(c)), "detail", c.get("view")),
    )
    .post(
      "/data_streams",
      {
        summary: "Create a data stream (types 3 and 4 only for products with a gateway)",
        body: streamCreateBody,
        response: dataStreamRecords.write,
      },
      async (c, { body }) => dataStream(await createDataStream(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put(
      "/data_streams/:id",
      {
        summary: "Edit a data stream (its product cannot change)",
        body: streamEditBody,
        response: dataStreamRecords.write,
      },
      async (c, { body }) =>
        dataStream(await updateDataStream(db, c.get("caller"), idParam(c), body), "write", c.get("view")),
    )
    .delete(
      "/data_streams",
      { summary: "Delete data streams (REFERENCED_ERROR while a metric uses one)", query: idsQuery },
      async (c, { query }) => {
        await deleteDataStreams(db, c.get("caller"), idsFrom(query));
      },
    ).app;
}
