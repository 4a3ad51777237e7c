import type { Tenant } from "@iot/registry";
import { formatDate } from "./dates.js";

/** A tenant as answered to the service administrator. */
export function tenant(t: Tenant) {
  return {
    id: t.id,
    tenantID: t.tenantId,
    tenantName: t.tenantName,
    enable: t.enable,
    createAt: formatDate(t.createAt),
    updateAt: formatDate(t.updateAt),
  };
}
