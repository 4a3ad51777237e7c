import { z } from "zod";
import type { ProductResource } from "@iot/registry";
import type { View } from "../view.js";
import { f, type RecordOf, type Shape, type ShapeOf } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/** The label of a codeValue: known digit codes have one, any other text has none. */
const codeValueLabel = (codeValue: string, view: View) =>
  /^\d{1,9}$/.test(codeValue) ? label("codeValue", Number(codeValue), view.lang) : null;

const listed = z.object({
  id: f.int,
  codeValue: f.str,
  codeValueLabel: f.label,
  dataPointIntID: f.int,
  dataPointName: f.strN,
  itemName: f.strN,
  productItemIntID: f.int,
  createAt: f.date,
  updateAt: f.date,
});

/** Product resource records by shape, the same in both forms. */
export const productResourceRecords = {
  write: z.object({
    codeValue: f.str,
    createAt: f.date,
    dataPointIntID: f.int,
    id: f.int,
    productItemIntID: f.int,
    updateAt: f.date,
  }),
  list: listed,
  detail: listed,
} satisfies Record<Shape, z.ZodType>;

/**
 * Product resource record, the same in Form 1 and Form 2. Lists and details
 * carry the spec's resource fields (with `codeValueLabel`, the data point's
 * name and the item name); the create answer carries exactly the spec's
 * create fields.
 */
export function productResource<S extends Shape>(
  r: ProductResource,
  shape: S,
  view: View,
): ShapeOf<typeof productResourceRecords, S>;
export function productResource(r: ProductResource, shape: Shape, view: View): RecordOf<typeof productResourceRecords> {
  if (shape === "write") {
    return {
      codeValue: r.codeValue,
      createAt: formatDate(r.createAt),
      dataPointIntID: r.dataPointIntId,
      id: r.id,
      productItemIntID: r.productItemIntId,
      updateAt: formatDate(r.updateAt),
    };
  }
  return {
    id: r.id,
    codeValue: r.codeValue,
    codeValueLabel: codeValueLabel(r.codeValue, view),
    dataPointIntID: r.dataPointIntId,
    dataPointName: r.dataPointName,
    itemName: r.itemName,
    productItemIntID: r.productItemIntId,
    createAt: formatDate(r.createAt),
    updateAt: formatDate(r.updateAt),
  };
}
