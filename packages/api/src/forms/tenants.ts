import type { Tenant } from "@iot/registry";
import { formatDate } from "./dates.js";

/** A tenant as answered to the service administrator, with its resource limits (0 = unlimited). */
export function tenant(t: Tenant) {
  return {
    id: t.id,
    tenantID: t.tenantId,
    tenantName: t.tenantName,
    enable: t.enable,
    maxDevices: t.maxDevices,
    maxConnections: t.maxConnections,
    maxUplinkRate: t.maxUplinkRate,
    createAt: formatDate(t.createAt),
    updateAt: formatDate(t.updateAt),
  };
}
