import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database, DataPointsTable } from "../store/schema.js";
import { fail, isUniqueViolation, RegistryError } from "../errors.js";
import type { Caller } from "./caller.js";
import { lockTenant } from "./locks.js";
import { deleteUnreferenced, namedUserIn } from "./delete-unreferenced.js";
import { registerArea } from "../modbus/register-area.js";
import { paginate, type ListResult, type Page } from "./list.js";
import { getProduct, getProductByProductId, type Product } from "./products.js";

/** Every `pointDataType` code of the spec: 1 numeric … 19 bit, and the Modbus types 21–25. */
export const POINT_DATA_TYPES = [1, 3, 4, 5, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25] as const;
/** Types that carry a number: only these may have a unit, limits and a step. */
export const NUMERIC_POINT_TYPES: readonly number[] = [1, 15, 16, 17, 18, 21, 22, 25];
/** Types of Modbus products (cloudProtocol 7), and of no other product. */
export const MODBUS_POINT_TYPES: readonly number[] = [21, 22, 23, 24, 25];
/** cloudProtocol of Modbus products. */
export const MODBUS_PROTOCOL = 7;

const FAULT = 4;
const MODBUS_BOOLEAN = 23;
/** Fixed-length string and binary: binarySize is their length. */
const FIXED_LENGTH = [11, 13];
/** Integers of binary streams: binarySize is their width in bytes (default 4). */
const SIZED_INTEGERS = [15, 16, 21, 22];

/** A data point row with its product's string id and name, the product's protocol and its creator's name. */
export type DataPoint = Selectable<DataPointsTable> & {
  productId: string;
  productName: string;
  cloudProtocol: number;
  createUser: string | null;
};

/** The settable fields, null meaning unset; `enum` is the parsed JSON array. */
export interface DataPointFields {
  dataPointName: string;
  dataPointId: string;
  pointDataType: number;
  /** 1 report only, 2 command only, 3 both. */
  dataTransType: number;
  unitName: string | null;
  unitSymbol: string | null;
  upperLimit: number | null;
  lowerLimit: number | null;
  dataStep: number | null;
  enum: unknown[] | null;
  /** 0, 1 yes, 2 no. */
  isLocationType: number | null;
  /** 1 longitude, 2 latitude, 3 altitude. */
  locationType: number | null;
  /** Length of fixed-length types; the bit position (0–15) of a Modbus boolean. */
  binarySize: number | null;
  faultValue: string | null;
  isDiscard: number | null;
  registerAddr: string | null;
  detail: string | null;
}

type Required = "dataPointName" | "dataPointId" | "pointDataType" | "dataTransType";
type Optional<T> = { [K in keyof T]?: T[K] | undefined };

/** Which product a write names: its integer id, its string productID, or both (they must agree). */
export interface ProductRef {
  productIntId?: number | undefined;
  productId?: string | undefined;
}

/** What a caller sends to create a data point (shape-validated by the API). */
export type DataPointInput = ProductRef & Pick<DataPointFields, Required> & Optional<Omit<DataPointFields, Required>>;
/** An edit: any field; a product reference is only compared (another product is FORM_INVALID). */
export type DataPointEdit = ProductRef & Optional<DataPointFields>;

type Stored = Omit<DataPointFields, "enum"> & { enum: string | null };

/**
 * The product a write names, of the caller's tenant. Unknown and foreign
 * products are FORM_INVALID naming the field that named them.
 */
export async function productOfRef(db: Kysely<Database>, caller: Caller, ref: ProductRef): Promise<Product> {
  if (ref.productIntId === undefined && ref.productId === undefined) throw fail.form({ productIntID: "required" });
  let product: Product | undefined;
  if (ref.productIntId !== undefined) {
    product = await getProduct(db, caller, ref.productIntId).catch((err: unknown) =>
      err instanceof RegistryError && err.code === "DATA_NOT_FOUND" ? undefined : Promise.reject(err),
    );
    if (!product) throw fail.form({ productIntID: "no such product" });
    if (ref.productId !== undefined && ref.productId !== product.productId)
      throw fail.form({ productID: "does not match productIntID" });
    return product;
  }
  product = await getProductByProductId(db, caller, ref.productId!);
  if (!product) throw fail.form({ productID: "no such product" });
  return product;
}

/** A product reference on an edit must name the record's own product. */
export function assertSameProduct(ref: ProductRef, current: { productIntId: number; productId: string }): void {
  if (ref.productIntId !== undefined && ref.productIntId !== current.productIntId)
    throw fail.form({ productIntID: "cannot be changed" });
  if (ref.productId !== undefined && ref.productId !== current.productId)
    throw fail.form({ productID: "cannot be changed" });
}

const inSet = (v: number | null, set: readonly number[]) => v === null || set.includes(v);

/**
 * The rule violations of a data point of a product with `cloudProtocol`, by
 * field (empty when valid): type codes, Modbus types and register addresses,
 * the fault value, numeric-only fields and their order, and binarySize.
 */
export function dataPointProblems(p: Omit<DataPointFields, "enum">, cloudProtocol: number): Record<string, string> {
  const e: Record<string, string> = {};
  const type = p.pointDataType;
  if (!p.dataPointName) e.dataPointName = "required";
  if (!p.dataPointId) e.dataPointID = "required";
  if (!(POINT_DATA_TYPES as readonly number[]).includes(type))
    e.pointDataType = `must be one of ${POINT_DATA_TYPES.join(", ")}`;
  else if (cloudProtocol === MODBUS_PROTOCOL && !MODBUS_POINT_TYPES.includes(type))
    e.pointDataType = "a Modbus product's points use types 21 to 25";
  else if (cloudProtocol !== MODBUS_PROTOCOL && MODBUS_POINT_TYPES.includes(type))
    e.pointDataType = "types 21 to 25 are for Modbus products only";
  if (!inSet(p.dataTransType, [1, 2, 3])) e.dataTransType = "must be one of 1, 2, 3";
  if (!inSet(p.isLocationType, [0, 1, 2])) e.isLocationType = "must be one of 0, 1, 2";
  if (!inSet(p.locationType, [1, 2, 3])) e.locationType = "must be one of 1, 2, 3";
  if (!inSet(p.isDiscard, [0, 1])) e.isDiscard = "must be 0 or 1";
  if (cloudProtocol === MODBUS_PROTOCOL && !p.registerAddr) e.registerAddr = "required for Modbus products";
  else if (cloudProtocol === MODBUS_PROTOCOL) {
    const area = registerArea(p.registerAddr!);
    if ("reason" in area) e.registerAddr = area.reason;
  }
  if (type === FAULT && !p.faultValue) e.faultValue = "required for the fault type (4)";
  if (NUMERIC_POINT_TYPES.includes(type)) {
    if (p.lowerLimit !== null && p.upperLimit !== null && p.lowerLimit > p.upperLimit)
      e.lowerLimit = "must not exceed upperLimit";
    if (p.dataStep !== null && p.dataStep <= 0) e.dataStep = "must be positive";
  } else {
    for (const f of ["unitName", "unitSymbol", "upperLimit", "lowerLimit", "dataStep"] as const) {
      if (p[f] !== null) e[f] = `only for numeric types (${NUMERIC_POINT_TYPES.join(", ")})`;
    }
  }
  const size = p.binarySize;
  if (type === MODBUS_BOOLEAN) {
    if (size === null) e.binarySize = "required for a Modbus boolean: the bit position 0 to 15";
    else if (size < 0 || size > 15) e.binarySize = "must be a bit position from 0 to 15";
  } else if (FIXED_LENGTH.includes(type)) {
    if (size !== null && size < 1) e.binarySize = "must be positive";
  } else if (SIZED_INTEGERS.includes(type)) {
    if (size !== null && (size < 1 || size > 8)) e.binarySize = "must be a width from 1 to 8 bytes";
  } else if (size !== null)
    e.binarySize = "only for fixed-length types (11, 13), integers (15, 16, 21, 22) and Modbus booleans (23)";
  return e;
}

function selectPoints(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("dataPoints as dp")
    .innerJoin("products as p", "p.id", "dp.productIntId")
    .leftJoin("users as u", "u.id", "dp.userIntId")
    .selectAll("dp")
    .select([
      "p.productId as productId",
      "p.productName as productName",
      "p.cloudProtocol as cloudProtocol",
      "u.username as createUser",
    ])
    .where("dp.tenantId", "=", tenantId);
}

const FIELDS = [
  "dataPointName",
  "dataPointId",
  "pointDataType",
  "dataTransType",
  "unitName",
  "unitSymbol",
  "upperLimit",
  "lowerLimit",
  "dataStep",
  "enum",
  "isLocationType",
  "locationType",
  "binarySize",
  "faultValue",
  "isDiscard",
  "registerAddr",
  "detail",
] as const satisfies ReadonlyArray<keyof Stored & keyof DataPointFields>;

/** The columns of the fields that are present: "" and null unset a field, `enum` becomes JSON text. */
function columns(f: Optional<DataPointFields>): Partial<Stored> {
  const out: Record<string, unknown> = {};
  for (const k of FIELDS) {
    const v = f[k];
    if (v === undefined) continue;
    out[k] = v === "" || v === null ? null : k === "enum" ? JSON.stringify(v) : v;
  }
  return out;
}

const UNSET = Object.fromEntries(FIELDS.map((f) => [f, null])) as unknown as Stored;
const storedOf = (row: DataPoint): Stored => Object.fromEntries(FIELDS.map((f) => [f, row[f]])) as unknown as Stored;

/** Validates a point against its product and the product's other points (DATA_EXISTED naming dataPointID). */
async function check(
  tx: Transaction<Database>,
  p: Stored,
  product: { id: number; cloudProtocol: number },
  self?: number,
): Promise<void> {
  const problems = dataPointProblems(p, product.cloudProtocol);
  if (Object.keys(problems).length > 0) throw fail.form(problems);
  let q = tx
    .selectFrom("dataPoints")
    .select("id")
    .where("productIntId", "=", product.id)
    .where("dataPointId", "=", p.dataPointId);
  if (self !== undefined) q = q.where("id", "!=", self);
  if (await q.executeTakeFirst()) throw fail.exists("dataPointID");
}

const existed = (err: unknown) => (isUniqueViolation(err) ? fail.exists("dataPointID") : err);

/**
 * Creates a data point of one of the caller's products; every rule of {@link dataPointProblems} applies, and
 * dataPointID is unique within the product.
 */
export async function createDataPoint(
  db: Kysely<Database>,
  caller: Caller,
  input: DataPointInput,
  now = Date.now(),
): Promise<DataPoint> {
  const id = await db
    .transaction()
    .execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      const product = await productOfRef(tx, caller, input);
      const p = { ...UNSET, ...columns(input) };
      await check(tx, p, product);
      const row = await tx
        .insertInto("dataPoints")
        .values({
          ...p,
          tenantId: caller.tenantId,
          userIntId: caller.userIntId,
          productIntId: product.id,
          createAt: now,
          updateAt: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      return row.id;
    })
    .catch((err: unknown) => Promise.reject(existed(err)));
  return getDataPoint(db, caller, id);
}

/** Lists the caller's data points, newest first, optionally of one product (its string productID). */
export async function listDataPoints(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { productId?: string | undefined } = {},
): Promise<ListResult<DataPoint>> {
  let q = selectPoints(db, caller.tenantId);
  if (filter.productId !== undefined) q = q.where("p.productId", "=", filter.productId);
  return paginate(q, page, "dp.id");
}

/** One data point of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getDataPoint(db: Kysely<Database>, caller: Caller, id: number): Promise<DataPoint> {
  const row = await selectPoints(db, caller.tenantId).where("dp.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("dataPoint");
  return row;
}

/**
 * Edits a data point: the sent fields over the stored ones must pass every rule again; the product is fixed. Sets
 * updateAt.
 */
export async function updateDataPoint(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: DataPointEdit,
  now = Date.now(),
): Promise<DataPoint> {
  await db
    .transaction()
    .execute(async (tx) => {
      await lockTenant(tx, caller.tenantId);
      const current = await getDataPoint(tx, caller, id);
      assertSameProduct(edit, current);
      const merged: Stored = { ...storedOf(current), ...columns(edit) };
      await check(tx, merged, { id: current.productIntId, cloudProtocol: current.cloudProtocol }, id);
      await tx
        .updateTable("dataPoints")
        .set({ ...merged, updateAt: now })
        .where("tenantId", "=", caller.tenantId)
        .where("id", "=", id)
        .execute();
    })
    .catch((err: unknown) => Promise.reject(existed(err)));
  return getDataPoint(db, caller, id);
}

/**
 * Deletes data points of the caller's tenant; foreign and unknown ids are
 * ignored. A point a data stream or a metric still uses is not deleted:
 * REFERENCED_ERROR names `dataStream`, `metric`, `productResource` or
 * `appTemplate` with that record's name.
 */
export async function deleteDataPoints(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  await deleteUnreferenced(db, caller, ids, {
    table: "dataPoints",
    referencedBy: [
      { kind: "dataStream", find: firstStreamWith },
      namedUserIn("metric", "metrics", "dataPointIntId"),
      namedUserIn("productResource", "productResources", "dataPointIntId"),
      namedUserIn("appTemplate", "appTemplates", "dataPointIntId"),
    ],
    cascade: async (tx, mine) => {
      await tx.deleteFrom("devicePointValues").where("dataPointIntId", "in", mine).execute();
    },
  });
}

/** The name of the oldest data stream that lists one of the points `ids`. */
async function firstStreamWith(tx: Transaction<Database>, ids: number[]): Promise<string | undefined> {
  const stream = await tx
    .selectFrom("dataStreamPoints as sp")
    .innerJoin("dataStreams as s", "s.id", "sp.dataStreamIntId")
    .select("s.streamName")
    .where("sp.dataPointIntId", "in", ids)
    .orderBy("s.id")
    .limit(1)
    .executeTakeFirst();
  return stream?.streamName;
}
