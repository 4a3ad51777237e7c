import { z } from "zod";
import type { Tenant } from "@iot/registry";
import { f } from "./common.js";
import { formatDate } from "./dates.js";

/** A tenant record. */
export const tenantRecord = z.object({
  id: f.int,
  tenantID: f.str,
  tenantName: f.str,
  enable: f.int,
  maxDevices: f.int,
  maxConnections: f.int,
  maxUplinkRate: f.int,
  createAt: f.date,
  updateAt: f.date,
});

/** A tenant as answered to the service administrator, with its resource limits (0 = unlimited). */
export function tenant(t: Tenant): z.output<typeof tenantRecord> {
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
