import { z } from "zod";
import type { AppTemplate, ConsoleTemplate } from "@iot/registry";
import type { View } from "../view.js";
import { f, parseJson, type RecordOf, type Shape, type ShapeOf } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

const stored = z.object({
  id: f.int,
  templateName: f.str,
  templateType: f.int,
  productID: f.str,
  productItemIntID: f.int,
  dataPointIntID: f.intN,
  dataStreamIntID: f.intN,
  dataTransType: f.intN,
  topic: f.strN,
  enum: f.json,
  places: f.json,
  instanceID: f.strN,
  itemID: f.strN,
  itemName: f.strN,
  itemOperations: f.json,
  objectID: f.strN,
  defaultValues: z.array(
    z.object({
      dataPointID: f.str,
      dataPointName: f.str,
      enum: f.json,
      id: f.int,
      pointDataType: f.int,
      value: f.json,
    }),
  ),
  createAt: f.date,
  updateAt: f.date,
});
const listed = stored.extend({
  templateTypeLabel: f.label,
  dataPointID: f.strN,
  dataPointName: f.strN,
  dataStreamName: f.strN,
});

/** App template records by shape (the same in both forms), and the device console's template. */
export const appTemplateRecords = {
  write: stored,
  list: listed,
  detail: listed.extend({ createUser: f.strN }),
} satisfies Record<Shape, z.ZodType>;

/** A template on a device's console. */
export const consoleTemplateRecord = listed
  .omit({ itemID: true, itemName: true, itemOperations: true, objectID: true })
  .extend({ value: f.strN });

/**
 * App template record, the same in Form 1 and Form 2 (labels follow the
 * caller's language). Create/edit answers carry the stored record (default
 * values resolved against the current data points); lists add the type
 * label and the data point's and stream's identifiers and names; details add
 * the creator.
 */
export function appTemplate<S extends Shape>(
  t: AppTemplate,
  shape: S,
  view: View,
): ShapeOf<typeof appTemplateRecords, S>;
export function appTemplate(t: AppTemplate, shape: Shape, view: View): RecordOf<typeof appTemplateRecords> {
  if (shape === "write") return storedTemplate(t);
  const listed = listedTemplate(t, view);
  if (shape === "list") return listed;
  return { ...listed, createUser: t.createUser };
}

function storedTemplate(t: AppTemplate): z.output<typeof appTemplateRecords.write> {
  return {
    id: t.id,
    templateName: t.templateName,
    templateType: t.templateType,
    productID: t.productId,
    productItemIntID: t.productItemIntId,
    dataPointIntID: t.dataPointIntId,
    dataStreamIntID: t.dataStreamIntId,
    dataTransType: t.dataTransType,
    topic: t.topic,
    enum: parseJson(t.enum),
    places: parseJson(t.places),
    instanceID: t.instanceId,
    itemID: t.itemId,
    itemName: t.itemName,
    itemOperations: parseJson(t.itemOperations),
    objectID: t.objectId,
    defaultValues: t.defaults.map((d) => ({
      dataPointID: d.dataPointId,
      dataPointName: d.dataPointName,
      enum: parseJson(d.enum),
      id: d.id,
      pointDataType: d.pointDataType,
      value: d.value,
    })),
    createAt: formatDate(t.createAt),
    updateAt: formatDate(t.updateAt),
  };
}

function listedTemplate(t: AppTemplate, view: View): z.output<typeof appTemplateRecords.list> {
  return {
    ...storedTemplate(t),
    templateTypeLabel: label("templateType", t.templateType, view.lang),
    dataPointID: t.dataPointId,
    dataPointName: t.dataPointName,
    dataStreamName: t.dataStreamName,
  };
}

/**
 * A template on a device's console: the list record without the LwM2M item fields, plus the device's current `value`
 * (String or null).
 */
export function consoleTemplate(t: ConsoleTemplate, view: View): z.output<typeof consoleTemplateRecord> {
  const {
    itemID: _itemID,
    itemName: _itemName,
    itemOperations: _itemOperations,
    objectID: _objectID,
    ...rest
  } = listedTemplate(t, view);
  return { ...rest, value: t.value };
}
