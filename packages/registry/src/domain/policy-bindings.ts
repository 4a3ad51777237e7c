import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { getDevice } from "./devices.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";
import { lockTenant } from "./locks.js";
import { getPolicy, selectPolicies, type Policy } from "./policies.js";

/** A device bound to (or bindable to) a policy, as the policy's device lists show it. */
export interface PolicyDevice {
  id: number;
  deviceId: string;
  deviceName: string;
  /** Form 1 code: 1 terminal, 2 gateway, 3 smartphone. */
  deviceType: number;
  productName: string;
}

/** Filters of the devices a policy can still be bound to (case-insensitive "contains"). */
export interface NotJoinedDeviceFilter {
  deviceNameLike?: string | undefined;
  /** Devices in at least one group whose name matches. */
  groupNameLike?: string | undefined;
  productNameLike?: string | undefined;
}

/** At most this many ids per bind request. */
export const MAX_BIND_IDS = 1000;

function selectPolicyDevices(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("devices as d")
    .innerJoin("products as pr", "pr.id", "d.productIntId")
    .select(["d.id", "d.deviceId", "d.deviceName", "d.deviceType", "pr.productName"])
    .where("d.tenantId", "=", tenantId);
}

/** Inserts bindings, skipping those that exist. */
async function bind(
  db: Kysely<Database>,
  pairs: Array<{ deviceIntId: number; policyIntId: number }>,
  now: number,
): Promise<void> {
  if (pairs.length === 0) return;
  await db
    .insertInto("devicePolicies")
    .values(pairs.map((p) => ({ ...p, createAt: now })))
    .onConflict((oc) => oc.columns(["deviceIntId", "policyIntId"]).doNothing())
    .execute();
}

/**
 * Binds policies to a device of the caller's tenant. Every id must be a
 * policy of the tenant, else FORM_INVALID names `ids` and nothing is bound;
 * bindings that exist are kept.
 */
export async function bindDevicePolicies(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  policyIds: number[],
  now = Date.now(),
): Promise<void> {
  const wanted = [...new Set(policyIds)];
  await db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const device = await getDevice(tx, caller, deviceIntId);
    if (wanted.length === 0) return;
    const ok = new Set(
      (
        await tx
          .selectFrom("policies")
          .select("id")
          .where("tenantId", "=", caller.tenantId)
          .where("id", "in", wanted)
          .execute()
      ).map((r) => r.id),
    );
    const refused = wanted.filter((id) => !ok.has(id));
    if (refused.length > 0) throw fail.form({ ids: `not policies of this tenant: ${refused.join(", ")}` });
    await bind(
      tx,
      wanted.map((policyIntId) => ({ deviceIntId: device.id, policyIntId })),
      now,
    );
  });
}

/** Unbinds policies from a device of the caller's tenant; ids not bound are ignored. */
export async function unbindDevicePolicies(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  policyIds: number[],
): Promise<void> {
  const device = await getDevice(db, caller, deviceIntId);
  if (policyIds.length === 0) return;
  await db
    .deleteFrom("devicePolicies")
    .where("deviceIntId", "=", device.id)
    .where("policyIntId", "in", policyIds)
    .execute();
}

/** The policies bound to a device of the caller's tenant, newest first. */
export async function listDevicePolicies(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  page: Page,
): Promise<ListResult<Policy>> {
  const device = await getDevice(db, caller, deviceIntId);
  const q = selectPolicies(db, caller.tenantId).where("p.id", "in", (eb) =>
    eb.selectFrom("devicePolicies as dp").select("dp.policyIntId").where("dp.deviceIntId", "=", device.id),
  );
  return paginate(q, page, "p.id");
}

/** The caller's policies not bound to the device yet, newest first. */
export async function notJoinedPolicies(
  db: Kysely<Database>,
  caller: Caller,
  deviceIntId: number,
  page: Page,
): Promise<ListResult<Policy>> {
  const device = await getDevice(db, caller, deviceIntId);
  const q = selectPolicies(db, caller.tenantId).where("p.id", "not in", (eb) =>
    eb.selectFrom("devicePolicies as dp").select("dp.policyIntId").where("dp.deviceIntId", "=", device.id),
  );
  return paginate(q, page, "p.id");
}

/**
 * Binds devices (gateways included) to a policy of the caller's tenant. Every
 * id must be a device of the tenant, else FORM_INVALID names `devicesIntID`
 * and nothing is bound; bindings that exist are kept.
 */
export async function bindPolicyDevices(
  db: Kysely<Database>,
  caller: Caller,
  policyId: number,
  deviceIds: number[],
  now = Date.now(),
): Promise<void> {
  const wanted = [...new Set(deviceIds)];
  await db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const policy = await getPolicy(tx, caller, policyId);
    if (wanted.length === 0) return;
    const ok = new Set(
      (
        await tx
          .selectFrom("devices")
          .select("id")
          .where("tenantId", "=", caller.tenantId)
          .where("id", "in", wanted)
          .execute()
      ).map((r) => r.id),
    );
    const refused = wanted.filter((id) => !ok.has(id));
    if (refused.length > 0) throw fail.form({ devicesIntID: `not devices of this tenant: ${refused.join(", ")}` });
    await bind(
      tx,
      wanted.map((deviceIntId) => ({ deviceIntId, policyIntId: policy.id })),
      now,
    );
  });
}

/** Unbinds devices from a policy of the caller's tenant; ids not bound are ignored. */
export async function unbindPolicyDevices(
  db: Kysely<Database>,
  caller: Caller,
  policyId: number,
  deviceIds: number[],
): Promise<void> {
  const policy = await getPolicy(db, caller, policyId);
  if (deviceIds.length === 0) return;
  await db
    .deleteFrom("devicePolicies")
    .where("policyIntId", "=", policy.id)
    .where("deviceIntId", "in", deviceIds)
    .execute();
}

/** The devices bound to a policy of the caller's tenant, newest first. */
export async function listPolicyDevices(
  db: Kysely<Database>,
  caller: Caller,
  policyId: number,
  page: Page,
): Promise<ListResult<PolicyDevice>> {
  const policy = await getPolicy(db, caller, policyId);
  const q = selectPolicyDevices(db, caller.tenantId).where("d.id", "in", (eb) =>
    eb.selectFrom("devicePolicies as dp").select("dp.deviceIntId").where("dp.policyIntId", "=", policy.id),
  );
  return paginate(q, page, "d.id");
}

/** The caller's devices not bound to the policy yet, newest first, filtered by device, group and product name. */
export async function notJoinedPolicyDevices(
  db: Kysely<Database>,
  caller: Caller,
  policyId: number,
  page: Page,
  filter: NotJoinedDeviceFilter = {},
): Promise<ListResult<PolicyDevice>> {
  const policy = await getPolicy(db, caller, policyId);
  let q = selectPolicyDevices(db, caller.tenantId).where("d.id", "not in", (eb) =>
    eb.selectFrom("devicePolicies as dp").select("dp.deviceIntId").where("dp.policyIntId", "=", policy.id),
  );
  if (filter.deviceNameLike) q = q.where(ilike("d.deviceName", filter.deviceNameLike));
  if (filter.productNameLike) q = q.where(ilike("pr.productName", filter.productNameLike));
  const groupNameLike = filter.groupNameLike;
  if (groupNameLike) {
    q = q.where("d.id", "in", (eb) =>
      eb
        .selectFrom("groupDevices as gd")
        .innerJoin("groups as g", "g.id", "gd.groupIntId")
        .select("gd.deviceIntId")
        .where("g.tenantId", "=", caller.tenantId)
        .where(ilike("g.groupName", groupNameLike)),
    );
  }
  return paginate(q, page, "d.id");
}
