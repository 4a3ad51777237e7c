import type { Kysely, Selectable, Transaction } from "kysely";
import type { Database, PoliciesTable } from "../store/schema.js";
import { reusableInQuery, reusableQuery } from "../store/reusable-query.js";
import { queryInGrouped } from "../store/query-in.js";
import { fail } from "../errors.js";
import type { Caller } from "./caller.js";
import { ilike, paginate, type ListResult, type Page } from "./list.js";
import { deleteUnreferenced } from "./delete-unreferenced.js";
import { topicFilterProblem } from "./topic-filter.js";

/** Policy access codes as stored (Form 1): 1 publish, 2 subscribe, 3 both. Form 2 edges subtract one. */
export const POLICY_ACCESS = { publish: 1, subscribe: 2, both: 3 } as const;

/** A policy row with its creator's name. `access` holds Form 1 codes; `allow` is 0 deny, 1 allow. */
export type Policy = Selectable<PoliciesTable> & { createUser: string | null };

/** Fields a caller sets on create. `topic` is an MQTT filter relative to the device's namespace. */
export interface PolicyInput {
  name: string;
  topic: string;
  /** Form 1 code: 1 publish, 2 subscribe, 3 both. */
  access: number;
  /** 0 deny, 1 allow. */
  allow: number;
  description?: string | null | undefined;
}

/** Fields an edit may change; absent ones stay. */
export type PolicyEdit = Partial<PolicyInput>;

/** The rules an adapter applies to one device's publishes and subscriptions. */
export interface DevicePolicyRule {
  id: number;
  topic: string;
  /** Form 1 code: 1 publish, 2 subscribe, 3 both. */
  access: number;
  allow: boolean;
}

/** Checks what the API's forms also check, so every caller of the registry gets the same rules. */
function check(p: PolicyEdit): void {
  const errors: Record<string, string> = {};
  const topicProblem = p.topic === undefined ? undefined : topicFilterProblem(p.topic);
  if (topicProblem) errors.topic = topicProblem;
  if (p.access !== undefined && ![1, 2, 3].includes(p.access)) errors.access = "must be one of 1, 2, 3";
  if (p.allow !== undefined && ![0, 1].includes(p.allow)) errors.allow = "must be 0 or 1";
  if (p.name !== undefined && p.name.trim() === "") errors.name = "required";
  if (Object.keys(errors).length > 0) throw fail.form(errors);
}

/** The tenant's policies with their creator's name (shared with the binding queries). @internal */
export function selectPolicies(db: Kysely<Database>, tenantId: string) {
  return db
    .selectFrom("policies as p")
    .leftJoin("users as u", "u.id", "p.userIntId")
    .selectAll("p")
    .select("u.username as createUser")
    .where("p.tenantId", "=", tenantId);
}

/** Creates a policy of the caller's tenant; FORM_INVALID names a bad topic, access or allow. */
export async function createPolicy(
  db: Kysely<Database>,
  caller: Caller,
  input: PolicyInput,
  now = Date.now(),
): Promise<Policy> {
  check(input);
  const row = await db
    .insertInto("policies")
    .values({
      tenantId: caller.tenantId,
      userIntId: caller.userIntId,
      name: input.name,
      topic: input.topic,
      access: input.access,
      allow: input.allow,
      description: input.description ?? null,
      createAt: now,
      updateAt: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...row, createUser: caller.username };
}

/** Lists the caller's policies, newest first, optionally filtered by name (case-insensitive "contains"). */
export function listPolicies(
  db: Kysely<Database>,
  caller: Caller,
  page: Page,
  filter: { nameLike?: string | undefined } = {},
): Promise<ListResult<Policy>> {
  let q = selectPolicies(db, caller.tenantId);
  if (filter.nameLike) q = q.where(ilike("p.name", filter.nameLike));
  return paginate(q, page, "p.id", ["name", "updateAt"]);
}

/** One policy of the caller's tenant; DATA_NOT_FOUND for unknown and foreign ids alike. */
export async function getPolicy(db: Kysely<Database>, caller: Caller, id: number): Promise<Policy> {
  const row = await selectPolicies(db, caller.tenantId).where("p.id", "=", id).executeTakeFirst();
  if (!row) throw fail.notFound("policy");
  return row;
}

/** Edits the given fields and sets updateAt. */
export async function updatePolicy(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  edit: PolicyEdit,
  now = Date.now(),
): Promise<Policy> {
  await getPolicy(db, caller, id);
  check(edit);
  const { name, topic, access, allow, description } = edit;
  // kysely leaves out members that are undefined: only the given fields change.
  await db
    .updateTable("policies")
    .set({ name, topic, access, allow, description, updateAt: now })
    .where("tenantId", "=", caller.tenantId)
    .where("id", "=", id)
    .execute();
  return getPolicy(db, caller, id);
}

/**
 * Deletes policies of the caller's tenant; foreign and unknown ids are ignored.
 * A policy still bound to a device is not deleted: REFERENCED_ERROR names `device`.
 */
export async function deletePolicies(db: Kysely<Database>, caller: Caller, ids: number[]): Promise<void> {
  await deleteUnreferenced(db, caller, ids, {
    table: "policies",
    referencedBy: [{ kind: "device", find: boundToDevice }],
    cascade: async (tx, mine) => {
      await tx.deleteFrom("devicePolicies").where("policyIntId", "in", mine).execute();
    },
  });
}

/** Whether one of the policies `ids` is bound to a device that exists (a binding left by no device does not count). */
async function boundToDevice(tx: Transaction<Database>, ids: number[]): Promise<string | undefined> {
  const bound = await tx
    .selectFrom("devicePolicies as dp")
    .innerJoin("devices as d", "d.id", "dp.deviceIntId")
    .select("dp.policyIntId")
    .where("dp.policyIntId", "in", ids)
    .limit(1)
    .executeTakeFirst();
  return bound ? "the policy is still bound to devices" : undefined;
}

/** Bound device ids per policy (the `mqtt_acl` of a policy record), for the given policies of the tenant. */
export async function deviceIdsByPolicy(
  db: Kysely<Database>,
  tenantId: string,
  policyIntIds: number[],
): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(policyIntIds.map((id) => [id, []]));
  if (policyIntIds.length === 0) return out;
  const rows = await db
    .selectFrom("devicePolicies as dp")
    .innerJoin("devices as d", "d.id", "dp.deviceIntId")
    .select(["dp.policyIntId", "dp.deviceIntId"])
    .where("d.tenantId", "=", tenantId)
    .where("dp.policyIntId", "in", policyIntIds)
    .orderBy("dp.deviceIntId")
    .execute();
  for (const r of rows) out.get(r.policyIntId)?.push(r.deviceIntId);
  return out;
}

/**
 * The policies bound to one device, oldest first, for the adapters' access
 * checks (a matching deny wins over an allow). Not tenant-scoped: the caller
 * is the registry acting for an authenticated device.
 */
export async function policiesOfDevice(db: Kysely<Database>, deviceIntId: number): Promise<DevicePolicyRule[]> {
  const rows = await policyRowsOfDevice(db, deviceIntId);
  return rows.map((r) => ({ id: r.id, topic: r.topic, access: r.access, allow: r.allow === 1 }));
}

/** The policies bound to each of several devices (AuthenticateBatch), as policiesOfDevice answers them one by one. */
export async function policiesOfDevices(
  db: Kysely<Database>,
  deviceIntIds: Iterable<number>,
): Promise<Map<number, DevicePolicyRule[]>> {
  return queryInGrouped(
    deviceIntIds,
    (ids) => policyRowsOfDevices(db, ids),
    (r) => ({ id: r.id, topic: r.topic, access: r.access, allow: r.allow === 1 }),
  );
}

/** Read at every AuthenticateBatch, so compiled once per IN list length (see reusableInQuery). */
const policyRowsOfDevices = reusableInQuery((db: Kysely<Database>, ids: number[]) =>
  db
    .selectFrom("devicePolicies as dp")
    .innerJoin("policies as p", "p.id", "dp.policyIntId")
    .innerJoin("devices as d", (j) => j.onRef("d.id", "=", "dp.deviceIntId").onRef("d.tenantId", "=", "p.tenantId"))
    .select(["dp.deviceIntId", "p.id", "p.topic", "p.access", "p.allow"])
    .where("dp.deviceIntId", "in", ids)
    .orderBy("p.id"),
);

/** Read at every device connect, so compiled once (see reusableQuery). */
const policyRowsOfDevice = reusableQuery((db: Kysely<Database>, deviceIntId: number) =>
  db
    .selectFrom("devicePolicies as dp")
    .innerJoin("policies as p", "p.id", "dp.policyIntId")
    .innerJoin("devices as d", (j) => j.onRef("d.id", "=", "dp.deviceIntId").onRef("d.tenantId", "=", "p.tenantId"))
    .select(["p.id", "p.topic", "p.access", "p.allow"])
    .where("dp.deviceIntId", "=", deviceIntId)
    .orderBy("p.id"),
);
