import { sql, type ExpressionBuilder, type Expression, type Kysely, type SqlBool, type Transaction } from "kysely";
import type { Database } from "../store/schema.js";
import { RegistryError } from "../errors.js";
import type { Caller } from "./caller.js";
import { lockTenant } from "./locks.js";

/** The tenant-owned tables whose records a delete refuses while other records still use them. */
type OwnedTable = "certs" | "dataPoints" | "dataStreams" | "devices" | "groups" | "policies" | "products";

/**
 * One "still used by" check of a delete. `find` answers, for the first record still using one of `ids`, the text the
 * REFERENCED_ERROR body gives under `kind` (that record's name, or why), else undefined.
 */
export interface ReferenceCheck {
  kind: string;
  find(tx: Transaction<Database>, ids: number[]): Promise<string | undefined>;
}

/** What a delete of unreferenced records needs to know beside the ids. */
export interface UnreferencedDelete {
  table: OwnedTable;
  /** Narrows which of the tenant's records may go (gateways only, say); the other ids are ignored. */
  scope?: ((eb: ExpressionBuilder<Database, OwnedTable>) => Expression<SqlBool>) | undefined;
  /** Run in order: the first that finds a user stops the delete. */
  referencedBy: readonly ReferenceCheck[];
  /** Removes what goes with the records (memberships, bindings, their data model), before the records themselves. */
  cascade?: ((tx: Transaction<Database>, ids: number[]) => Promise<void>) | undefined;
}

/**
 * Deletes the records `ids` of the caller's tenant (foreign and unknown ids are ignored), in one transaction under the
 * tenant lock so that no new user appears between the checks and the delete. While any of them is still used, the
 * first check that finds a user throws REFERENCED_ERROR naming its kind, and nothing is deleted. Answers the ids
 * deleted. Every kind's delete goes through here, so they refuse alike.
 */
export async function deleteUnreferenced(
  db: Kysely<Database>,
  caller: Caller,
  ids: number[],
  spec: UnreferencedDelete,
): Promise<number[]> {
  if (ids.length === 0) return [];
  return db.transaction().execute(async (tx) => {
    await lockTenant(tx, caller.tenantId);
    const { scope } = spec;
    const own = await tx
      .selectFrom(spec.table)
      .select("id")
      .where("tenantId", "=", caller.tenantId)
      .where("id", "in", ids)
      .$if(scope !== undefined, (q) => q.where(scope!))
      .execute();
    const mine = own.map((r) => r.id);
    if (mine.length === 0) return [];
    for (const check of spec.referencedBy) {
      const user = await check.find(tx, mine);
      if (user !== undefined) throw new RegistryError("REFERENCED_ERROR", { [check.kind]: user });
    }
    await spec.cascade?.(tx, mine);
    await tx.deleteFrom(spec.table).where("id", "in", mine).execute();
    return mine;
  });
}

/** The link and child tables whose mere rows keep a record in use, with the column holding its id. */
interface HolderColumns {
  deviceCerts: "certIntId";
  groupDevices: "groupIntId";
  devices: "productIntId";
  groups: "productIntId";
}

/** A check that finds any row of `table` whose `column` holds one of the ids: the body says `text`. */
export function heldBy<T extends keyof HolderColumns>(
  kind: string,
  table: T,
  column: HolderColumns[T],
  text: string,
): ReferenceCheck {
  // The pair is checked at the call; the query needs only the unions.
  const from: keyof HolderColumns = table;
  const where: HolderColumns[keyof HolderColumns] = column;
  return {
    kind,
    find: async (tx, ids) => {
      const row = await tx
        .selectFrom(from)
        .select(sql<number>`1`.as("held"))
        .where(where, "in", ids)
        .limit(1)
        .executeTakeFirst();
      return row ? text : undefined;
    },
  };
}

/** The tables of records that use a data point or stream, with the column that names such a record. */
const NAME_COLUMNS = { metrics: "metricName", productResources: "codeValue", appTemplates: "templateName" } as const;

/**
 * A check that finds the oldest record of `table` whose `column` holds one of the ids: the body gives that record's
 * name, so the caller knows which one to change first.
 */
export function namedUserIn(
  kind: string,
  table: keyof typeof NAME_COLUMNS,
  column: "dataPointIntId" | "dataStreamIntId",
): ReferenceCheck {
  return {
    kind,
    find: async (tx, ids) => {
      const row = await tx
        .selectFrom(table)
        .select(sql<string>`${sql.ref(NAME_COLUMNS[table])}`.as("name"))
        .where(column, "in", ids)
        .orderBy("id")
        .limit(1)
        .executeTakeFirst();
      return row?.name;
    },
  };
}
