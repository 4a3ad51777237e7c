import type { Group } from "@iot/registry";
import type { View } from "../view.js";
import type { Shape } from "./common.js";
import { formatDate } from "./dates.js";

/**
 * Group record in Form 1 or Form 2. Lists show the product's name and the
 * members (Form 1 a `deviceCount`, Form 2 `devices: [{id}]` and `userIntID`);
 * details add the creator and the tenant; create/edit answers carry the
 * stored record only (no joined names, no members).
 */
export function group(g: Group & { deviceIds?: number[] }, shape: Shape, view: View) {
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
