import type { Kysely, RawBuilder } from "kysely";
import type { Database } from "../store/schema.js";
import type { Caller } from "./caller.js";
import { deviceSearchConditions } from "./device-search.js";
import { selectDevices, withCerts, type Device } from "./devices.js";
import { paginateIds, type ListResult, type Page } from "./list.js";

/** Filters of the device list (Form 1: gateway, parentDevice; Form 2: the rest). */
export interface DeviceFilter {
  gateway?: number | undefined;
  parentDevice?: number | undefined;
  deviceNameLike?: string | undefined;
  deviceIdLike?: string | undefined;
  /** Form 1 code (1 terminal, 2 gateway, 3 smartphone). */
  deviceType?: number | undefined;
  /** A group's string groupID: only its members. */
  groupId?: string | undefined;
  /** A product's string productID. */
  productId?: string | undefined;
  /** Form 1 lists gateways under /gateways only; Form 2 lists them as deviceType 1. */
  includeGateways?: boolean | undefined;
}

/**
 * The caller's devices matching `f`, from the devices table alone (the joins come with the page's records);
 * `textSearch`: the conditions of `f.deviceNameLike` and `f.deviceIdLike` (deviceSearchConditions).
 */
function filteredDevices(
  db: Kysely<Database>,
  tenantId: string,
  f: DeviceFilter,
  textSearch: readonly RawBuilder<boolean>[],
) {
  let q = db.selectFrom("devices as d").where("d.tenantId", "=", tenantId);
  if (!f.includeGateways) q = q.where("d.deviceType", "!=", 2);
  if (f.gateway !== undefined) q = q.where("d.gateway", "=", f.gateway);
  if (f.parentDevice !== undefined) q = q.where("d.parentDevice", "=", f.parentDevice);
  for (const condition of textSearch) q = q.where(condition);
  if (f.deviceType !== undefined) q = q.where("d.deviceType", "=", f.deviceType);
  const productId = f.productId;
  if (productId !== undefined)
    q = q.where("d.productIntId", "in", (eb) =>
      eb.selectFrom("products").select("id").where("tenantId", "=", tenantId).where("productId", "=", productId),
    );
  const groupId = f.groupId;
  if (groupId !== undefined)
    q = q.where("d.id", "in", (eb) =>
      eb
        .selectFrom("groupDevices as gd")
        .innerJoin("groups as gr", "gr.id", "gd.groupIntId")
        .select("gd.deviceIntId")
        .where("gr.tenantId", "=", tenantId)
        .where("gr.groupId", "=", groupId),
    );
  return q;
}

/** Lists the caller's devices, newest first. */
export async function listDevices(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  f: DeviceFilter = {},
): Promise<ListResult<Device>> {
  const filtered = filteredDevices(db, caller.tenantId, f, await deviceSearchConditions(db, f, "d.id"));
  return paginateIds(filtered, page, "d.id", ["deviceName", "deviceStatus", "updateAt"], async (ids) =>
    withCerts(db, await selectDevices(db, caller.tenantId).where("d.id", "in", ids).execute()),
  );
}
