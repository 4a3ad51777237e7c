import type { Kysely, Selectable, Transaction } from "kysely";
import type { AppTemplatesTable, Database } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { assertSameProduct, productOfRef, type ProductRef } from "./data-points.js";
import { lockTenant } from "./locks.js";
import { paginate, type ListResult, type Page } from "./list.js";

/** `templateType` codes: the spec names 1 (switch) only. */
export const TEMPLATE_TYPES: readonly number[] = [1];
/** Most default values one template may carry. */
export const MAX_DEFAULT_VALUES = 100;

/** A stored default value: a data point of the template's product and the value to preset. */
export interface DefaultValue {
  /** The data point's integer id. */
  id: number;
  value: string | number | boolean | null;
}

/** A default value as answered: the data point's current identifier, name, enum (JSON text) and type with the value. */
export interface ResolvedDefaultValue extends DefaultValue {
  dataPointId: string;
  dataPointName: string;
  enum: string | null;
  pointDataType: number;
}

/**
 * A template row with its product's string id, the joined data point and
 * stream names, its creator, and its default values resolved against the
 * current data points (entries whose point was deleted are left out).
 */
export type AppTemplate = Selectable<AppTemplatesTable> & {
  productId: string;
  dataPointId: string | null;
  dataPointName: string | null;
  dataStreamName: string | null;
  createUser: string | null;
  defaults: ResolvedDefaultValue[];
};

/**
 * The settable fields, null meaning unset; enum, places, itemOperations and defaultValues as values (stored as JSON).
 */
export interface AppTemplateFields {
  templateName: string;
  /** 1 switch. */
  templateType: number;
  productItemIntId: number;
  dataPointIntId: number | null;
  dataStreamIntId: number | null;
  /** 1 report only, 2 command only, 3 both. */
  dataTransType: number | null;
  topic: string | null;
  enum: unknown[] | null;
  /** Two integers (the template's place on the console). */
  places: [number, number] | null;
  instanceId: string | null;
  itemId: string | null;
  itemName: string | null;
  itemOperations: unknown;
  objectId: string | null;
  defaultValues: DefaultValue[] | null;
}

type Optional<T> = { [K in keyof T]?: T[K] | undefined };

/** What a caller sends to create a template; the product is named by productIntId or productId. */
export type AppTemplateInput = ProductRef &
  Pick<AppTemplateFields, "templateName" | "templateType"> &
  Optional<Omit<AppTemplateFields, "templateName" | "templateType">>;
/** An edit: any field; a product reference is only compared (another product is FORM_INVALID). */
export type AppTemplateEdit = ProductRef & Optional<AppTemplateFields>;

type Stored = Omit<
  Selectable<AppTemplatesTable>,
  "id" | "tenantId" | "userIntId" | "productIntId" | "createAt" | "updateAt"
>;

const JSON_FIELDS = ["enum", "places", "itemOperations", "defaultValues"] as const;
const FIELDS = [
  "templateName",
  "templateType",
  "productItemIntId",
  "dataPointIntId",
  "dataStreamIntId",
  "dataTransType",
  "topic",
  "enum",
  "places",
  "instanceId",
  "itemId",
  "itemName",
  "itemOperations",
  "objectId",
  "defaultValues",
] as const satisfies ReadonlyArray<keyof Stored & keyof AppTemplateFields>;

/** The columns of the present fields: JSON fields become text, blank strings unset. */
function columns(f: Optional<AppTemplateFields>): Partial<Stored> {
  const out: Record<string, unknown> = {};
  for (const k of FIELDS) {
    const v = f[k];
    if (v === undefined) continue;
    if (k === "defaultValues")
      out[k] =
        v === null ? null : JSON.stringify((v as DefaultValue[]).map((d) => ({ id: d.id, value: d.value ?? null })));
    else if ((JSON_FIELDS as readonly string[]).includes(k)) out[k] = v === null || v === "" ? null : JSON.stringify(v);
    else out[k] = typeof v === "string" ? v.trim() || (k === "templateName" ? "" : null) : v;
  }
  return out;
}

const UNSET: Stored = {
  templateName: "",
  templateType: 1,
  productItemIntId: 0,
  dataPointIntId: null,
  dataStreamIntId: null,
  dataTransType: null,
  topic: null,
  enum: null,
  places: null,
  instanceId: null,
  itemId: null,
  itemName: null,
  itemOperations: null,
  objectId: null,
  defaultValues: null,
};

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

/** The rule violations of stored fields, by API field name (empty when valid). */
export function appTemplateProblems(t: Stored): Record<string, string> {
  const e: Record<string, string> = {};
  if (!t.templateName.trim()) e.templateName = "required";
  if (!TEMPLATE_TYPES.includes(t.templateType)) e.templateType = `must be one of ${TEMPLATE_TYPES.join(", ")}`;
  if (!Number.isInteger(t.productItemIntId) || t.productItemIntId < 0)
    e.productItemIntID = "must be 0 or a positive integer";
  if (t.dataTransType !== null && ![1, 2, 3].includes(t.dataTransType)) e.dataTransType = "must be one of 1, 2, 3";
  const places = parse<unknown>(t.places);
  if (places !== null && !(Array.isArray(places) && places.length === 2 && places.every((n) => Number.isInteger(n))))
    e.places = "must be an array of two integers";
  const enumValue = parse<unknown>(t.enum);
  if (enumValue !== null && !Array.isArray(enumValue)) e.enum = "must be an array";
  const defaults = parse<unknown>(t.defaultValues);
  if (defaults !== null) {
    if (!Array.isArray(defaults) || defaults.length > MAX_DEFAULT_VALUES)
      e.defaultValues = `must be an array of at most ${MAX_DEFAULT_VALUES} entries`;
    else if (!defaults.every((d: { id?: unknown }) => Number.isInteger(d?.id)))
      e.defaultValues = "every entry needs the integer id of a data point";
    else if (new Set(defaults.map((d: { id: number }) => d.id)).size !== defaults.length)
      e.defaultValues = "a data point appears more than once";
  }
  return e;
}

/** Checks the fields, then that every data point and stream named is the caller's and of the template's product. */
async function check(tx: Transaction<Database>, caller: Caller, t: Stored, productIntId: number): Promise<void> {
  const e = appTemplateProblems(t);
  if (Object.keys(e).length > 0) throw fail.form(e);
  const pointsOf = async (ids: number[]) =>
    ids.length === 0
      ? new Set<number>()
      : new Set(
          (
            await tx
              .selectFrom("dataPoints")
              .select("id")
              .where("tenantId", "=", caller.tenantId)
              .where("productIntId", "=", productIntId)
              .where("id", "in", ids)
              .execute()
          ).map((r) => r.id),
        );
  if (t.dataPointIntId !== null && !(await pointsOf([t.dataPointIntId])).has(t.dataPointIntId))
    e.dataPointIntID = "not a data point of the template's product";
  if (t.dataStreamIntId !== null) {
    const s = await tx
      .selectFrom("dataStreams")
      .select("id")
      .where("tenantId", "=", caller.tenantId)
      .where("productIntId", "=", productIntId)
      .where("id", "=", t.dataStreamIntId)
      .executeTakeFirst();
    if (!s) e.dataStreamIntID = "not a data stream of the template's product";
  }
  const defaults = parse<DefaultValue[]>(t.defaultValues) ?? [];
  const ids = [...new Set(defaults.map((d) => d.id))];
  const ok = await pointsOf(ids);
  const refused = ids.filter((id) => !ok.has(id));
  if (refused.length > 0) e.defaultValues = `not data points of the template's product: ${refused.join(", ")}`;
  if (Object.keys(e).length > 0) throw fail.form(e);
}

function selectTemplates(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("appTemplates as t")
    .innerJoin("products as p", "p.id", "t.productIntId")
    .leftJoin("dataPoints as dp", "dp.id", "t.dataPointIntId")
    .leftJoin("dataStreams as ds", "ds.id", "t.dataStreamIntId")
    .leftJoin("users as u", "u.id", "t.userIntId")
    .selectAll("t")
    .select([
      "p.productId as productId",
      "dp.dataPointId as dataPointId",
      "dp.dataPointName as dataPointName",
      "ds.streamName as dataStreamName",
      "u.username as createUser",
    ])
    .where("t.tenantId", "=", tenantId);
}

/** Resolves the default values of `rows` against the tenant's current data points. */
async function withDefaults<R extends Omit<AppTemplate, "defaults">>(
  db: Kysely<Database>,
  tenantId: string,
  rows: R[],
): Promise<Array<R & { defaults: ResolvedDefaultValue[] }>> {
  const stored = rows.map((r) => parse<DefaultValue[]>(r.defaultValues) ?? []);
  const ids = [...new Set(stored.flat().map((d) => d.id))];
  const points =
    ids.length === 0
      ? []
      : await db
          .selectFrom("dataPoints")
          .select(["id", "dataPointId", "dataPointName", "enum", "pointDataType"])
          .where("tenantId", "=", tenantId)
          .where("id", "in", ids)
          .execute();
  const byId = new Map(points.map((p) => [p.id, p]));
  return rows.map((r, i) => ({
    ...r,
    defaults: stored[i]!.flatMap((d) => {
      const p = byId.get(d.id);
      return p
        ? [
            {
              id: d.id,
              value: d.value,
              dataPointId: p.dataPointId,
              dataPointName: p.dataPointName,
              enum: p.enum,
              pointDataType: p.pointDataType,
            },
          ]
        : [];
    }),
  }));
}

/**
 * Creates an app template of one of the caller's products; every data point and stream it names must be of that product
 * (FORM_INVALID naming the field).
 */
export async function createAppTemplate(
  db: Kysely<Database>,
  caller: Caller,
  input: AppTemplateInput,
  now = Date.now(),
): Promise<AppTemplate> {
  const id = await db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const product = await productOfRef(tx, caller, input);
    const t: Stored = { ...UNSET, ...columns(input) };
    await check(tx, caller, t, product.id);
    const row = await tx
      .insertInto("appTemplates")
      .values({
        ...t,
        tenantId: caller.tenantId,
        userIntId: caller.userIntId,
        productIntId: product.id,
        createAt: now,
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  });
  return getAppTemplate(db, caller, id);
}

/** Lists the caller's app templates, newest first, optionally of one product (string productID or integer id). */
export async function listAppTemplates(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { productId?: string | undefined; productIntId?: number | undefined } = {},
): Promise<ListResult<AppTemplate>> {
  let q = selectTemplates(db, caller.tenantId);
  if (filter.productId !== undefined) q = q.where("p.productId", "=", filter.productId);
  if (filter.productIntId !== undefined) q = q.where("t.productIntId", "=", filter.productIntId);
  const r = await paginate(q, page, "t.id");
  return { ...r, items: await withDefaults(db, caller.tenantId, r.items) };
}

/** One app template of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getAppTemplate(db: Kysely<Database>, caller: Caller, id: number): Promise<AppTemplate> {
  const row = await selectTemplates(db, caller.tenantId).where("t.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("appTemplate");
  return (await withDefaults(db, caller.tenantId, [row]))[0]!;
}

/**
 * Edits a template: the sent fields over the stored ones must pass the create rules again; the product is fixed. Sets
 * updateAt.
 */
export async function updateAppTemplate(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: AppTemplateEdit,
  now = Date.now(),
): Promise<AppTemplate> {
  await db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const current = await getAppTemplate(tx, caller, id);
    assertSameProduct(edit, current);
    const merged: Stored = {
      ...(Object.fromEntries(FIELDS.map((f) => [f, current[f]])) as unknown as Stored),
      ...columns(edit),
    };
    await check(tx, caller, merged, current.productIntId);
    await tx
      .updateTable("appTemplates")
      .set({ ...merged, updateAt: now })
      .where("tenantId", "=", caller.tenantId)
      .where("id", "=", id)
      .execute();
  });
  return getAppTemplate(db, caller, id);
}

/**
 * Deletes app templates of the caller's tenant; foreign and unknown ids are ignored (nothing references a template).
 */
export async function deleteAppTemplates(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom("appTemplates").where("tenantId", "=", caller.tenantId).where("id", "in", ids).execute();
}
