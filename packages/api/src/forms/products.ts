import type { Product } from "@iot/registry";
import type { View } from "../view.js";
import type { Shape } from "./common.js";
import { formatDate } from "./dates.js";
import { label } from "./labels.js";

/** Product record in Form 1 or Form 2 (Form 2 lists member device ids instead of counts). */
export function product(p: Product & { deviceIds?: number[] }, shape: Shape, view: View) {
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
