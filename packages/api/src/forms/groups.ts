import { z } from "zod";
import type { Group } from "@iot/registry";
import type { View } from "../view.js";
import { f, type ByForm, type FormShapeOf, type RecordOf, type Shape } from "./common.js";
import { formatDate } from "./dates.js";

const base = z.object({ id: f.int, groupID: f.str, groupName: f.str, description: f.strN, productID: f.str });
const dates = { createAt: f.date, updateAt: f.date };
const write = base.extend({ tenantID: f.str, userIntID: f.int, ...dates });
const list1 = base.extend({ productName: f.str, deviceCount: f.int, ...dates });
const list2 = base.extend({ productName: f.str, devices: f.ids, userIntID: f.int, ...dates });
const detailMore = { createUser: f.strN, tenantID: f.str, userIntID: f.int };

/** Group records by form and shape: what `group` returns and the OpenAPI document describes. */
export const groupRecords = {
  "1": { write, list: list1, detail: list1.extend(detailMore) },
  "2": { write, list: list2, detail: list2.extend(detailMore) },
} satisfies ByForm<Record<Shape, z.ZodType>>;

/**
 * Group record in Form 1 or Form 2. Lists show the product's name and the
 * members (Form 1 a `deviceCount`, Form 2 `devices: [{id}]` and `userIntID`);
 * details add the creator and the tenant; create/edit answers carry the
 * stored record only (no joined names, no members).
 */
export function group<S extends Shape>(
  g: Group & { deviceIds?: number[] },
  shape: S,
  view: View,
): FormShapeOf<typeof groupRecords, S>;
export function group(
  g: Group & { deviceIds?: number[] },
  shape: Shape,
  view: View,
): RecordOf<(typeof groupRecords)["1"]> | RecordOf<(typeof groupRecords)["2"]> {
  const base = {
    id: g.id,
    groupID: g.groupId,
    groupName: g.groupName,
    description: g.description,
    productID: g.productId,
  };
  const dates = { createAt: formatDate(g.createAt), updateAt: formatDate(g.updateAt) };
  if (shape === "write") return { ...base, tenantID: g.tenantId, userIntID: g.userIntId, ...dates };
  const listed = {
    ...base,
    productName: g.productName,
    ...(view.form === "1"
      ? { deviceCount: g.deviceCount }
      : { devices: (g.deviceIds ?? []).map((id) => ({ id })), userIntID: g.userIntId }),
    ...dates,
  };
  if (shape === "list") return listed;
  return { ...listed, createUser: g.createUser, tenantID: g.tenantId, userIntID: g.userIntId };
}
