import { sql, type Expression, type Kysely, type SqlBool } from "kysely";
import type { Database } from "./schema.js";
import { EitherEngineInsert } from "./multi-row-insert.js";

/**
 * Each tenant's count of stored uplinks whose device exists (what the tenant's uplink list counts), kept as signed
 * delta rows in `uplink_counts` (migration 0024): counting the uplinks themselves took 75 ms on SQLite and 280 ms on
 * PostgreSQL per page at 1,000,000 uplinks. Every change of that number goes in the transaction that makes it, so a
 * reader sees the count of exactly the uplinks it sees:
 * - the uplink writer adds each batch's newly stored rows (addUplinkCounts);
 * - a device's deletion subtracts its uplinks, which the list no longer shows (subtractDeviceUplinks);
 * - the retention sweep subtracts the uplinks of existing devices it deletes (subtractUplinksWhere);
 * - a job folds each tenant's rows into one (UplinkCountFolder).
 * Uplinks written any other way (a test or benchmark inserting rows) are counted again by recountUplinks.
 * On PostgreSQL two races can leave a tenant's sum off: an uplink committed for a device while another transaction
 * deletes that device is counted but hidden, and a device deleted while the retention sweep deletes its old uplinks
 * has those subtracted twice. SQLite serializes every write, so neither happens there; on PostgreSQL the folder
 * reconciles the sums with the rows now and then (reconcileUplinkCounts).
 */

const COUNT_INSERT = new EitherEngineInsert("uplink_counts", { tenant_id: "text", n: "bigint" });

/** Adds each tenant's uplinks stored now (tenant → how many), inside the transaction that stored them. */
export async function addUplinkCounts(tx: Kysely<Database>, counts: ReadonlyMap<string, number>): Promise<void> {
  if (counts.size === 0) return;
  const values: unknown[] = [];
  for (const [tenantId, n] of counts) values.push(tenantId, n);
  await COUNT_INSERT.run(tx, values);
}

/** How many uplinks of the tenant are stored with their device still there. */
export async function tenantUplinkCount(db: Kysely<Database>, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom("uplinkCounts")
    .select((eb) => eb.fn.sum<number | string | null>("n").as("n"))
    .where("tenantId", "=", tenantId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Subtracts the stored uplinks of these devices of the tenant, in the transaction that deletes the devices. */
export async function subtractDeviceUplinks(
  tx: Kysely<Database>,
  tenantId: string,
  deviceIntIds: readonly number[],
): Promise<void> {
  if (deviceIntIds.length === 0) return;
  await tx
    .insertInto("uplinkCounts")
    .columns(["tenantId", "n"])
    .expression(
      tx
        .selectFrom("deviceEvents")
        .select([sql<string>`cast(${tenantId} as text)`.as("tenantId"), sql<number>`-count(*)`.as("n")])
        .where("tenantId", "=", tenantId)
        .where("deviceIntId", "in", [...deviceIntIds])
        .having(sql`count(*)`, ">", 0),
    )
    .execute();
}

/**
 * Subtracts the uplinks `where` selects whose device exists, in the transaction that then deletes them. `where` names
 * device_events' columns unqualified.
 */
export async function subtractUplinksWhere(tx: Kysely<Database>, where: Expression<SqlBool>): Promise<void> {
  await sql`insert into uplink_counts (tenant_id, n)
    select tenant_id, -count(*) from device_events
    where ${where} and exists (select 1 from devices d where d.id = device_events.device_int_id)
    group by tenant_id`.execute(tx);
}

/** Counts every tenant's uplinks again from the rows (after uplinks were inserted other than by the writer). */
export async function recountUplinks(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await tx.deleteFrom("uplinkCounts").execute();
    await sql`insert into uplink_counts (tenant_id, n)
      select e.tenant_id, count(*) from device_events e join devices d on d.id = e.device_int_id
      group by e.tenant_id`.execute(tx);
  });
}

/**
 * Folds each tenant's delta rows into one; answers how many rows went. The rows a tenant's fold deletes are summed
 * from what the delete returned, so rows committed meanwhile by another node are kept as they are, never lost.
 */
export async function foldUplinkCounts(db: Kysely<Database>): Promise<number> {
  const tenants = await db
    .selectFrom("uplinkCounts")
    .select("tenantId")
    .groupBy("tenantId")
    .having(sql`count(*)`, ">", 1)
    .execute();
  let folded = 0;
  for (const { tenantId } of tenants)
    await db.transaction().execute(async (tx) => {
      const gone = await tx.deleteFrom("uplinkCounts").where("tenantId", "=", tenantId).returning("n").execute();
      const n = gone.reduce((sum, r) => sum + Number(r.n), 0);
      await tx.insertInto("uplinkCounts").values({ tenantId, n }).execute();
      folded += gone.length - 1;
    });
  return folded;
}

/**
 * Sets each tenant's sum right where it drifted from its rows (PostgreSQL's races above), and answers the corrections
 * (tenant → what was added). Both are read in one REPEATABLE READ snapshot and the difference goes in as one more
 * delta row: transactions committed after the snapshot carry their own deltas, which stay right, and nothing is
 * deleted, so a fold or an uplink batch running meanwhile never conflicts with it. It counts every uplink with its
 * device (a second or so at 1,000,000 on PostgreSQL), so it runs seldom.
 */
export async function reconcileUplinkCounts(db: Kysely<Database>): Promise<Map<string, number>> {
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute(async (tx) => {
      const kept = await tx
        .selectFrom("uplinkCounts")
        .select(["tenantId", (eb) => eb.fn.sum<number | string>("n").as("n")])
        .groupBy("tenantId")
        .execute();
      const { rows: actual } = await sql<{ tenantId: string; n: number | string }>`
        select e.tenant_id as "tenantId", count(*) as n from device_events e join devices d on d.id = e.device_int_id
        group by e.tenant_id`.execute(tx);
      const off = new Map<string, number>();
      for (const r of actual) off.set(r.tenantId, Number(r.n));
      for (const r of kept) off.set(r.tenantId, (off.get(r.tenantId) ?? 0) - Number(r.n));
      for (const [tenantId, n] of off) if (n === 0) off.delete(tenantId);
      if (off.size > 0) await addUplinkCounts(tx, off);
      return off;
    });
}

/** Default pause between two folds, ms: the uplink writer adds a row per tenant per batch, a few hundred a second. */
const DEFAULT_FOLD_INTERVAL_MS = 10_000;
/** Default pause between two reconciliations on PostgreSQL, ms. */
export const DEFAULT_RECONCILE_INTERVAL_MS = 3_600_000;

/** Options of an UplinkCountFolder; defaults above. */
export interface UplinkCountFolderOptions {
  intervalMs?: number;
  /** How often the sums are reconciled with the rows (reconcileUplinkCounts); 0: never (SQLite has no drift). */
  reconcileIntervalMs?: number;
  /** Told each tenant's correction when a reconciliation found a sum off. */
  onReconciled?: (corrections: ReadonlyMap<string, number>) => void;
  onError?: (err: unknown) => void;
}

/**
 * Runs foldUplinkCounts every `intervalMs` and, when `reconcileIntervalMs` is set, reconcileUplinkCounts once that
 * long has passed since the last (the first one a whole interval after start). A singleton job: one node at a time.
 */
export class UplinkCountFolder {
  private timer: NodeJS.Timeout | undefined;
  private folding: Promise<unknown> | undefined;
  private reconciledAt = Date.now();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly opts: UplinkCountFolderOptions = {},
  ) {}

  start(): void {
    this.reconciledAt = Date.now();
    this.timer ??= setInterval(() => {
      if (this.folding) return;
      this.folding = this.step()
        .catch((err: unknown) => this.opts.onError?.(err))
        .finally(() => (this.folding = undefined));
    }, this.opts.intervalMs ?? DEFAULT_FOLD_INTERVAL_MS);
    this.timer.unref();
  }

  private async step(): Promise<void> {
    const every = this.opts.reconcileIntervalMs ?? 0;
    if (every > 0 && Date.now() - this.reconciledAt >= every) {
      this.reconciledAt = Date.now();
      const corrections = await reconcileUplinkCounts(this.db);
      if (corrections.size > 0) this.opts.onReconciled?.(corrections);
    }
    await foldUplinkCounts(this.db);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.folding;
  }
}
