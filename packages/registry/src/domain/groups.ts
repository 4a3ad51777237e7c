import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, GroupsTable } from "../store/schema.js";
import { fail, isUniqueViolation } from "../errors.js";
import type { Caller } from "./caller.js";
import { lockTenant } from "./locks.js";
import { deleteUnreferenced, heldBy } from "./delete-unreferenced.js";
import { listDevices } from "./list-devices.js";
import type { Device } from "./devices.js";
import { randomCode } from "./ids.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";
import { getProductByProductId } from "./products.js";

/** A group row with its product's string id and name, its creator's name and its number of members. */
export type Group = Selectable<GroupsTable> & {
  productId: string;
  productName: string;
  createUser: string | null;
  deviceCount: number;
};

/** Fields a caller sets on create; the product is fixed afterwards. */
export interface GroupInput {
  /** The string productID of one of the caller's products. */
  productId: string;
  groupName: string;
  description?: string | null | undefined;
}

/** Fields an edit may change. A productId is only compared: a different one is FORM_INVALID. */
export interface GroupEdit {
  groupName?: string | undefined;
  description?: string | null | undefined;
  productId?: string | undefined;
}

/** `deviceType` of gateways: they relay for devices and are never group members. */
const GATEWAY = 2;

function selectGroups(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("groups as g")
    .innerJoin("products as p", "p.id", "g.productIntId")
    .leftJoin("users as u", "u.id", "g.userIntId")
    .selectAll("g")
    .select(["p.productId as productId", "p.productName as productName", "u.username as createUser"])
    .select((eb) =>
      eb
        .selectFrom("groupDevices as gd")
        .select(sql<number>`count(*)`.as("n"))
        .whereRef("gd.groupIntId", "=", "g.id")
        .as("deviceCount"),
    )
    .where("g.tenantId", "=", tenantId);
}

const withNumbers = (g: Omit<Group, "deviceCount"> & { deviceCount: number | string | null }): Group => ({
  ...g,
  deviceCount: Number(g.deviceCount ?? 0),
});

/** Creates a group of one of the caller's products with a fresh groupID (6 letters/digits, unique in the tenant). */
export async function createGroup(
  db: Kysely<Database>,
  caller: Caller,
  input: GroupInput,
  now = Date.now(),
): Promise<Group> {
  const product = await getProductByProductId(db, caller, input.productId);
  if (!product) throw fail.form({ productID: "no such product" });
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await db
        .insertInto("groups")
        .values({
          tenantId: caller.tenantId,
          userIntId: caller.userIntId,
          groupId: randomCode(6),
          groupName: input.groupName,
          description: input.description ?? null,
          productIntId: product.id,
          createAt: now,
          updateAt: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return {
        ...row,
        productId: product.productId,
        productName: product.productName,
        createUser: caller.username,
        deviceCount: 0,
      };
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= 5) throw err;
    }
  }
}

/** Lists the caller's groups, newest first, optionally filtered by name and groupID (case-insensitive "contains"). */
export async function listGroups(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { groupNameLike?: string | undefined; groupIdLike?: string | undefined } = {},
): Promise<ListResult<Group>> {
  let q = selectGroups(db, caller.tenantId);
  if (filter.groupNameLike) q = q.where(ilike("g.groupName", filter.groupNameLike));
  if (filter.groupIdLike) q = q.where(ilike("g.groupId", filter.groupIdLike));
  const r = await paginate(q, page, "g.id", ["groupName", "updateAt"]);
  return { ...r, items: r.items.map(withNumbers) };
}

/** One group of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getGroup(db: Kysely<Database>, caller: Caller, id: number): Promise<Group> {
  const row = await selectGroups(db, caller.tenantId).where("g.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("group");
  return withNumbers(row);
}

/** Edits name and description and sets updateAt; the product stays (a different productID is FORM_INVALID). */
export async function updateGroup(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: GroupEdit,
  now = Date.now(),
): Promise<Group> {
  const group = await getGroup(db, caller, id);
  if (edit.productId !== undefined && edit.productId !== group.productId)
    throw fail.form({ productID: "cannot be changed" });
  const set = {
    ...(edit.groupName !== undefined ? { groupName: edit.groupName } : {}),
    ...(edit.description !== undefined ? { description: edit.description } : {}),
    updateAt: now,
  };
  await db.updateTable("groups").set(set).where("tenantId", "=", caller.tenantId).where("id", "=", id).execute();
  return getGroup(db, caller, id);
}

/**
 * Deletes groups of the caller's tenant; foreign and unknown ids are ignored.
 * A group that still has member devices is not deleted: REFERENCED_ERROR names `device`. Its schedules go with it.
 */
export async function deleteGroups(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  await deleteUnreferenced(db, caller, ids, {
    table: "groups",
    referencedBy: [heldBy("device", "groupDevices", "groupIntId", "the group still has devices")],
    // A deleted group's schedules and LoRaWAN multicast session end with it.
    cascade: async (tx, mine) => {
      await tx.deleteFrom("schedules").where("groupIntId", "in", mine).execute();
      await tx.deleteFrom("loraMulticast").where("groupIntId", "in", mine).execute();
    },
  });
}

/**
 * Adds devices to a group. Every id must be a non-gateway device of the
 * caller's tenant and of the group's product, else FORM_INVALID names `ids`
 * and nothing is added; ids already in the group are skipped.
 */
export async function addGroupDevices(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  deviceIds: number[],
  now = Date.now(),
): Promise<void> {
  const wanted = [...new Set(deviceIds)];
  await db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const group = await getGroup(tx, caller, id);
    if (wanted.length === 0) return;
    const found = await tx
      .selectFrom("devices")
      .select(["id", "deviceType", "productIntId"])
      .where("tenantId", "=", caller.tenantId)
      .where("id", "in", wanted)
      .execute();
    const gateways = new Set(found.filter((d) => d.deviceType === GATEWAY).map((d) => d.id));
    const ok = new Set(
      found.filter((d) => d.productIntId === group.productIntId && !gateways.has(d.id)).map((d) => d.id),
    );
    const refused = wanted.filter((d) => !ok.has(d) && !gateways.has(d));
    const reasons = [
      ...(gateways.size > 0 ? [`gateways, which no group holds: ${[...gateways].join(", ")}`] : []),
      ...(refused.length > 0 ? [`not devices of the group's product: ${refused.join(", ")}`] : []),
    ];
    if (reasons.length > 0) throw fail.form({ ids: reasons.join("; ") });
    await tx
      .insertInto("groupDevices")
      .values(wanted.map((deviceIntId) => ({ groupIntId: group.id, deviceIntId, createAt: now })))
      .onConflict((oc) => oc.columns(["groupIntId", "deviceIntId"]).doNothing())
      .execute();
  });
}

/** Removes devices from a group of the caller's tenant; ids that are not members are ignored. */
export async function removeGroupDevices(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  deviceIds: number[],
): Promise<void> {
  const group = await getGroup(db, caller, id);
  if (deviceIds.length === 0) return;
  await db
    .deleteFrom("groupDevices")
    .where("groupIntId", "=", group.id)
    .where("deviceIntId", "in", deviceIds)
    .execute();
}

/** The member devices of a group of the caller's tenant, newest first. */
export async function listGroupDevices(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  page: Page,
): Promise<ListResult<Device>> {
  const group = await getGroup(db, caller, id);
  return listDevices(db, caller, page, { groupId: group.groupId });
}

/** The caller's devices of the group's product that are not in the group yet (gateways excluded), oldest first. */
export async function notJoinedDevices(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
): Promise<Array<{ id: number; deviceName: string }>> {
  const group = await getGroup(db, caller, id);
  return db
    .selectFrom("devices as d")
    .select(["d.id", "d.deviceName"])
    .where("d.tenantId", "=", caller.tenantId)
    .where("d.productIntId", "=", group.productIntId)
    .where("d.deviceType", "!=", GATEWAY)
    .where("d.id", "not in", (eb) =>
      eb.selectFrom("groupDevices as gd").select("gd.deviceIntId").where("gd.groupIntId", "=", group.id),
    )
    .orderBy("d.id")
    .execute();
}

/** Member device ids per group (Form 2 records list them), for the given groups of the tenant. */
export async function deviceIdsByGroup(
  db: Kysely<Database>,
  tenantId: string,
  groupIntIds: number[],
): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(groupIntIds.map((id) => [id, []]));
  if (groupIntIds.length === 0) return out;
  const rows = await db
    .selectFrom("groupDevices as gd")
    .innerJoin("groups as g", "g.id", "gd.groupIntId")
    .select(["gd.groupIntId", "gd.deviceIntId"])
    .where("g.tenantId", "=", tenantId)
    .where("gd.groupIntId", "in", groupIntIds)
    .orderBy("gd.deviceIntId")
    .execute();
  for (const r of rows) out.get(r.groupIntId)?.push(r.deviceIntId);
  return out;
}
