import { z } from "zod";
import type { Product } from "@iot/registry";
import type { View } from "../view.js";
import { f, type ByForm, type FormShapeOf, type RecordOf, type Shape } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

const write = z.object({
  id: f.int,
  productID: f.str,
  productName: f.str,
  description: f.strN,
  userIntID: f.int,
  tenantID: f.str,
  createAt: f.date,
  updateAt: f.date,
});
const write1 = write.extend({ cloudProtocol: f.int });
const list1 = write1.extend({
  cloudProtocolLabel: f.label,
  deviceCount: f.int,
  dataPointCount: f.int,
  dataStreamCount: f.int,
});
const list2 = write.extend({ devices: f.ids });

/** Product records by form and shape: what `product` returns and the OpenAPI document describes. */
export const productRecords = {
  "1": { write: write1, list: list1, detail: list1.extend({ createUser: f.strN }) },
  "2": { write, list: list2, detail: list2.extend({ createUser: f.strN }) },
} satisfies ByForm<Record<Shape, z.ZodType>>;

/** Product record in Form 1 or Form 2 (Form 2 lists member device ids instead of counts). */
export function product<S extends Shape>(
  p: Product & { deviceIds?: number[] },
  shape: S,
  view: View,
): FormShapeOf<typeof productRecords, S>;
export function product(
  p: Product & { deviceIds?: number[] },
  shape: Shape,
  view: View,
): RecordOf<(typeof productRecords)["1"]> | RecordOf<(typeof productRecords)["2"]> {
  const base = {
    id: p.id,
    productID: p.productId,
    productName: p.productName,
    description: p.description,
    ...(view.form === "1" ? { cloudProtocol: p.cloudProtocol } : {}),
    userIntID: p.userIntId,
    tenantID: p.tenantId,
    createAt: formatDate(p.createAt),
    updateAt: formatDate(p.updateAt),
  };
  if (shape === "write") return base;
  return {
    ...base,
    ...(view.form === "1"
      ? {
          cloudProtocolLabel: label("cloudProtocol", p.cloudProtocol, view.lang),
          deviceCount: p.deviceCount,
          dataPointCount: p.dataPointCount,
          dataStreamCount: p.dataStreamCount,
        }
      : { devices: (p.deviceIds ?? []).map((id) => ({ id })) }),
    ...(shape === "detail" ? { createUser: p.createUser } : {}),
  };
}
