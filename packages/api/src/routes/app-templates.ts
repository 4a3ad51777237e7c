import { z } from "zod";
import {
  createAppTemplate,
  deleteAppTemplates,
  getAppTemplate,
  listAppTemplates,
  MAX_DEFAULT_VALUES,
  TEMPLATE_TYPES,
  updateAppTemplate,
} from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { appTemplate } from "../forms/app-templates.js";
import { list } from "../forms/common.js";
import { codeField, idParam, idsFrom, idsQuery, intField, listQuery, pageFrom, jsonArrayField } from "../params.js";
import { ApiRouter } from "../router.js";
import { listOf } from "../forms/common.js";
import { appTemplateRecords } from "../forms/app-templates.js";

const text = (max: number) => z.string().trim().max(max, `at most ${max} characters`);
/** An optional value that "" and null unset. */
const unsettable = <T extends z.ZodType>(s: T) =>
  z
    .union([s, z.literal(""), z.null()])
    .optional()
    .transform((v) => (v === "" ? null : (v as z.output<T> | null | undefined)));
/** LwM2M identifiers: strings (numbers are taken as their digits). */
const ident = z.union([text(50), z.number().int().transform(String)]).nullish();
const MAX_JSON = 10_000;

/** `enum`: a JSON array, or a string holding one. */
const enumField = jsonArrayField(MAX_JSON);

const TWO_INTEGERS = "must be an array of two integers";
/** `places`: two integers (digit strings allowed); null unsets; any other shape is one error naming `places`. */
const places = z
  .unknown()
  .transform((v, ctx): [number, number] | null | undefined => {
    if (v === undefined || v === null) return v;
    const parsed = z.tuple([intField, intField]).safeParse(v);
    if (parsed.success) return parsed.data;
    ctx.addIssue({ code: "custom", message: TWO_INTEGERS });
    return z.NEVER;
  })
  .meta({
    description: `Two integers; ${TWO_INTEGERS}`,
    type: "array",
    items: { type: "integer" },
    minItems: 2,
    maxItems: 2,
  });

const defaultValue = z.object({
  id: intField,
  value: z.union([z.string().max(1000, "at most 1000 characters"), z.number(), z.boolean(), z.null()]).optional(),
});

const fields = {
  templateName: z.string().trim().min(1, "required").max(50, "at most 50 characters"),
  templateType: codeField(TEMPLATE_TYPES),
  productID: z.string().trim().min(1, "required").max(50, "at most 50 characters").optional(),
  productIntID: intField.optional(),
  productItemIntID: intField.refine((v) => v >= 0, "must be 0 or a positive integer").optional(),
  dataPointIntID: unsettable(intField),
  dataStreamIntID: unsettable(intField),
  dataTransType: unsettable(codeField([1, 2, 3])),
  topic: text(200).nullish(),
  enum: enumField,
  places,
  instanceID: ident,
  itemID: ident,
  itemName: text(50).nullish(),
  itemOperations: z.union([text(50), z.array(text(20)).max(10, "at most 10 operations"), z.null()]).optional(),
  objectID: ident,
  defaultValues: z.array(defaultValue).max(MAX_DEFAULT_VALUES, `at most ${MAX_DEFAULT_VALUES} entries`).nullish(),
};

type Body = { [K in keyof typeof fields]?: z.output<(typeof fields)[K]> };
const toDomain = ({
  productID,
  productIntID,
  productItemIntID,
  dataPointIntID,
  dataStreamIntID,
  instanceID,
  itemID,
  objectID,
  defaultValues,
  ...rest
}: Body) => ({
  ...rest,
  productId: productID,
  productIntId: productIntID,
  productItemIntId: productItemIntID,
  dataPointIntId: dataPointIntID,
  dataStreamIntId: dataStreamIntID,
  instanceId: instanceID,
  itemId: itemID,
  objectId: objectID,
  defaultValues:
    defaultValues === undefined || defaultValues === null
      ? defaultValues
      : defaultValues.map((d) => ({ id: d.id, value: d.value ?? null })),
});

const createBody = z
  .strictObject(fields)
  .transform((b) => ({ ...toDomain(b), templateName: b.templateName, templateType: b.templateType }));
/**
 * Edits carry the whole record; read-only members (id, labels, joined names, dates) are dropped, a product reference is
 * only compared.
 */
const editBody = z
  .object({ ...fields, templateName: fields.templateName.optional(), templateType: fields.templateType.optional() })
  .transform(toDomain);

/**
 * App templates: list, detail, create, edit, delete. Every data point and stream a template names is of its product.
 */
export function appTemplateRoutes(deps: AppDeps, docs: ApiDocs) {
  const db = deps.store.db;
  return new ApiRouter(docs, "App templates")
    .get(
      "/app_templates",
      {
        summary: "List app templates, optionally of one product",
        response: listOf(appTemplateRecords.list),
        query: listQuery({ productID: z.string().optional() }),
      },
      async (c, { query }) =>
        list(
          await listAppTemplates(db, c.get("caller"), pageFrom(query), { productId: query.productID || undefined }),
          (t) => appTemplate(t, "list", c.get("view")),
        ),
    )
    .get("/app_templates/:id", { summary: "App template detail", response: appTemplateRecords.detail }, async (c) =>
      appTemplate(await getAppTemplate(db, c.get("caller"), idParam(c)), "detail", c.get("view")),
    )
    .post(
      "/app_templates",
      {
        summary: "Create an app template of a product (productID or productIntID)",
        body: createBody,
        response: appTemplateRecords.write,
      },
      async (c, { body }) => appTemplate(await createAppTemplate(db, c.get("caller"), body), "write", c.get("view")),
    )
    .put(
      "/app_templates/:id",
      { summary: "Edit an app template (its product is fixed)", body: editBody, response: appTemplateRecords.write },
      async (c, { body }) =>
        appTemplate(await updateAppTemplate(db, c.get("caller"), idParam(c), body), "write", c.get("view")),
    )
    .delete("/app_templates", { summary: "Delete app templates", query: idsQuery }, async (c, { query }) => {
      await deleteAppTemplates(db, c.get("caller"), idsFrom(query));
    }).app;
}
