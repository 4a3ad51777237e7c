import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database, DataStreamsTable } from "../store/schema.js";
import { fail, isUniqueViolation } from "../errors.js";
import type { Caller } from "./caller.js";
import { assertSameProduct, productOfRef, type ProductRef } from "./data-points.js";
import { lockTenant } from "./locks.js";
import { deleteUnreferenced, namedUserIn } from "./delete-unreferenced.js";
import { paginate, type ListResult, type Page } from "./list.js";

/** 1 device report, 2 device command, 3 gateway report, 4 gateway command. */
export const STREAM_TYPES: readonly number[] = [1, 2, 3, 4];
/** Stream types only a gateway product may have. */
export const GATEWAY_STREAM_TYPES: readonly number[] = [3, 4];
/** Streams devices or gateways report on (their topic may be a filter). */
const REPORT_STREAM_TYPES = [1, 3];
/** 1 JSON, 2 binary. */
export const STREAM_DATA_TYPES: readonly number[] = [1, 2];
/** Longest topic of a stream, characters. */
export const MAX_STREAM_TOPIC = 200;

/** `deviceType` of gateways. */
const GATEWAY = 2;

/** A stream row with its product's ids and name, its creator, and its data points (ids and names, in order). */
export type DataStream = Selectable<DataStreamsTable> & {
  productId: string;
  productName: string;
  createUser: string | null;
  dataPoints: number[];
  dataPointNames: string[];
};

/** What a caller sends to create a stream (shape-validated by the API); dataPoints default to none. */
export interface DataStreamInput extends ProductRef {
  streamName: string;
  streamType: number;
  streamDataType: number;
  topic: string;
  dataPoints?: number[] | undefined;
  detail?: string | null | undefined;
}

/** An edit: any field; dataPoints, when sent, replace the list; a product reference is only compared. */
export type DataStreamEdit = ProductRef & {
  [K in Exclude<keyof DataStreamInput, keyof ProductRef>]?: DataStreamInput[K] | undefined;
};

/**
 * Why `topic` is not a valid relative MQTT topic name, or undefined when it is:
 * not empty, at most {@link MAX_STREAM_TOPIC} characters, no wildcards (`+`,
 * `#`), no leading `/` or `$`, no empty level, no NUL.
 */
export function streamTopicProblem(topic: string, streamType = 1): string | undefined {
  if (topic.length === 0) return "required";
  if (topic.length > MAX_STREAM_TOPIC) return `at most ${MAX_STREAM_TOPIC} characters`;
  // A report stream is an MQTT filter the data pipeline matches uplinks with; a command stream names one topic.
  if (!REPORT_STREAM_TYPES.includes(streamType)) {
    if (/[+#]/.test(topic)) return "wildcards + and # are only for report streams (types 1 and 3)";
  } else {
    const levels = topic.split("/");
    if (levels.some((l) => l.length > 1 && /[+#]/.test(l))) return "+ and # must stand alone in their level";
    if (levels.slice(0, -1).includes("#")) return "# may only be the last level";
  }
  if (topic.startsWith("/")) return "must be relative (no leading /)";
  if (topic.startsWith("$")) return "may not start with $";
  if (topic.includes("\u0000")) return "may not contain NUL";
  if (topic.split("/").some((level) => level === "")) return "may not have empty levels";
  return undefined;
}

/**
 * A gateway product is a product with at least one gateway (a device of
 * deviceType 2); only such products may have streams of type 3 or 4.
 */
export async function isGatewayProduct(db: Kysely<Database>, tenantId: string, productIntId: number): Promise<boolean> {
  const gw = await db
    .selectFrom("devices")
    .select("id")
    .where("tenantId", "=", tenantId)
    .where("productIntId", "=", productIntId)
    .where("deviceType", "=", GATEWAY)
    .limit(1)
    .executeTakeFirst();
  return gw !== undefined;
}

function selectStreams(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("dataStreams as s")
    .innerJoin("products as p", "p.id", "s.productIntId")
    .leftJoin("users as u", "u.id", "s.userIntId")
    .selectAll("s")
    .select(["p.productId as productId", "p.productName as productName", "u.username as createUser"])
    .where("s.tenantId", "=", tenantId);
}

/** Adds the data points (ids and names, in stream order) to stream rows. */
async function withPoints<T extends { id: number }>(
  db: Kysely<Database>,
  rows: T[],
): Promise<Array<T & { dataPoints: number[]; dataPointNames: string[] }>> {
  const byStream = new Map(rows.map((r) => [r.id, { dataPoints: [] as number[], dataPointNames: [] as string[] }]));
  if (rows.length > 0) {
    const points = await db
      .selectFrom("dataStreamPoints as sp")
      .innerJoin("dataPoints as dp", "dp.id", "sp.dataPointIntId")
      .select(["sp.dataStreamIntId", "dp.id", "dp.dataPointName"])
      .where(
        "sp.dataStreamIntId",
        "in",
        rows.map((r) => r.id),
      )
      .orderBy("sp.dataStreamIntId")
      .orderBy("sp.position")
      .execute();
    for (const p of points) {
      const s = byStream.get(p.dataStreamIntId)!;
      s.dataPoints.push(p.id);
      s.dataPointNames.push(p.dataPointName);
    }
  }
  return rows.map((r) => ({ ...r, ...byStream.get(r.id)! }));
}

/**
 * Checks name, types, topic (DATA_EXISTED when another stream of the product has it) and the points of a stream of
 * `productIntId`.
 */
async function check(
  tx: Transaction<Database>,
  caller: Caller,
  s: { productIntId: number; streamName: string; streamType: number; streamDataType: number; topic: string },
  opts: { self?: number; typeChanged: boolean; points?: number[] | undefined },
) {
  const e: Record<string, string> = {};
  if (!s.streamName.trim()) e.streamName = "required";
  if (!STREAM_TYPES.includes(s.streamType)) e.streamType = "must be one of 1, 2, 3, 4";
  else if (
    opts.typeChanged &&
    GATEWAY_STREAM_TYPES.includes(s.streamType) &&
    !(await isGatewayProduct(tx, caller.tenantId, s.productIntId))
  ) {
    e.streamType = "3 and 4 are only for gateway products (products with at least one gateway)";
  }
  if (!STREAM_DATA_TYPES.includes(s.streamDataType)) e.streamDataType = "must be 1 or 2";
  const topicProblem = streamTopicProblem(s.topic, s.streamType);
  if (topicProblem) e.topic = topicProblem;
  if (opts.points && opts.points.length > 0) {
    const found = await tx
      .selectFrom("dataPoints")
      .select("id")
      .where("tenantId", "=", caller.tenantId)
      .where("productIntId", "=", s.productIntId)
      .where("id", "in", opts.points)
      .execute();
    const ok = new Set(found.map((r) => r.id));
    const refused = opts.points.filter((id) => !ok.has(id));
    if (refused.length > 0) e.dataPoints = `not data points of the stream's product: ${refused.join(", ")}`;
  }
  if (Object.keys(e).length > 0) throw fail.form(e);
  let q = tx
    .selectFrom("dataStreams")
    .select("id")
    .where("productIntId", "=", s.productIntId)
    .where("topic", "=", s.topic);
  if (opts.self !== undefined) q = q.where("id", "!=", opts.self);
  if (await q.executeTakeFirst()) throw fail.exists("topic");
}

async function writePoints(tx: Transaction<Database>, streamId: number, points: number[]) {
  await tx.deleteFrom("dataStreamPoints").where("dataStreamIntId", "=", streamId).execute();
  if (points.length === 0) return;
  await tx
    .insertInto("dataStreamPoints")
    .values(points.map((dataPointIntId, position) => ({ dataStreamIntId: streamId, dataPointIntId, position })))
    .execute();
}

const unique = (ids: number[] | undefined) => (ids === undefined ? undefined : [...new Set(ids)]);
const existed = (err: unknown) => (isUniqueViolation(err) ? fail.exists("topic") : err);

/**
 * Creates a data stream of one of the caller's products: types 3 and 4 only
 * for gateway products, topic unique within the product (DATA_EXISTED), every
 * data point of the same product (FORM_INVALID naming dataPoints; repeats are dropped).
 */
export async function createDataStream(
  db: Kysely<Database>,
  caller: Caller,
  input: DataStreamInput,
  now = Date.now(),
): Promise<DataStream> {
  const points = unique(input.dataPoints) ?? [];
  const id = await db
    .transaction()
    .execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      const product = await productOfRef(tx, caller, input);
      const s = {
        productIntId: product.id,
        streamName: input.streamName,
        streamType: input.streamType,
        streamDataType: input.streamDataType,
        topic: input.topic,
        detail: input.detail || null,
      };
      await check(tx, caller, s, { typeChanged: true, points });
      const row = await tx
        .insertInto("dataStreams")
        .values({ ...s, tenantId: caller.tenantId, userIntId: caller.userIntId, createAt: now, updateAt: null })
        .returning("id")
        .executeTakeFirstOrThrow();
      await writePoints(tx, row.id, points);
      return row.id;
    })
    .catch((err: unknown) => Promise.reject(existed(err)));
  return getDataStream(db, caller, id);
}

/** Lists the caller's data streams, newest first, optionally of one product (its string productID). */
export async function listDataStreams(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { productId?: string | undefined } = {},
): Promise<ListResult<DataStream>> {
  let q = selectStreams(db, caller.tenantId);
  if (filter.productId !== undefined) q = q.where("p.productId", "=", filter.productId);
  const r = await paginate(q, page, "s.id");
  return { ...r, items: await withPoints(db, r.items) };
}

/** One data stream of the caller's tenant with its data points; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getDataStream(db: Kysely<Database>, caller: Caller, id: number): Promise<DataStream> {
  const row = await selectStreams(db, caller.tenantId).where("s.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("dataStream");
  return (await withPoints(db, [row]))[0]!;
}

/**
 * Edits a stream under the create rules (the gateway rule when the type changes); the product is fixed. Sets updateAt.
 */
export async function updateDataStream(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: DataStreamEdit,
  now = Date.now(),
): Promise<DataStream> {
  const points = unique(edit.dataPoints);
  await db
    .transaction()
    .execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      const cur = await getDataStream(tx, caller, id);
      assertSameProduct(edit, cur);
      const s = {
        productIntId: cur.productIntId,
        streamName: edit.streamName ?? cur.streamName,
        streamType: edit.streamType ?? cur.streamType,
        streamDataType: edit.streamDataType ?? cur.streamDataType,
        topic: edit.topic ?? cur.topic,
        detail: edit.detail === undefined ? cur.detail : edit.detail || null,
      };
      await check(tx, caller, s, { self: id, typeChanged: s.streamType !== cur.streamType, points });
      const { productIntId: _fixed, ...set } = s;
      await tx
        .updateTable("dataStreams")
        .set({ ...set, updateAt: now })
        .where("tenantId", "=", caller.tenantId)
        .where("id", "=", id)
        .execute();
      if (points) await writePoints(tx, id, points);
    })
    .catch((err: unknown) => Promise.reject(existed(err)));
  return getDataStream(db, caller, id);
}

/**
 * Deletes data streams of the caller's tenant with their point lists; foreign
 * and unknown ids are ignored. A stream a metric still uses is not deleted:
 * REFERENCED_ERROR names `metric` or `appTemplate` with its name.
 */
export async function deleteDataStreams(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  await deleteUnreferenced(db, caller, ids, {
    table: "dataStreams",
    referencedBy: [
      namedUserIn("metric", "metrics", "dataStreamIntId"),
      namedUserIn("appTemplate", "appTemplates", "dataStreamIntId"),
    ],
    cascade: async (tx, mine) => {
      await tx.deleteFrom("dataStreamPoints").where("dataStreamIntId", "in", mine).execute();
    },
  });
}
