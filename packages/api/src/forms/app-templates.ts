import type { AppTemplate, ConsoleTemplate } from "@iot/registry";
import type { View } from "../view.js";
import { parseJson, type Shape } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/**
 * App template record, the same in Form 1 and Form 2 (labels follow the
 * caller's language). Create/edit answers carry the stored record (default
 * values resolved against the current data points); lists add the type
 * label and the data point's and stream's identifiers and names; details add
 * the creator.
 */
export function appTemplate(t: AppTemplate, shape: Shape, view: View) {
  const stored = {
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
  if (shape === "write") return stored;
  const listed = {
    ...stored,
    templateTypeLabel: label("templateType", t.templateType, view.lang),
    dataPointID: t.dataPointId,
    dataPointName: t.dataPointName,
    dataStreamName: t.dataStreamName,
  };
  if (shape === "list") return listed;
  return { ...listed, createUser: t.createUser };
}

/**
 * A template on a device's console: the list record without the LwM2M item fields, plus the device's current `value`
 * (String or null).
 */
export function consoleTemplate(t: ConsoleTemplate, view: View) {
  const {
    itemID: _itemID,
    itemName: _itemName,
    itemOperations: _itemOperations,
    objectID: _objectID,
    ...rest
  } = appTemplate(t, "list", view);
  return { ...rest, value: t.value };
}
