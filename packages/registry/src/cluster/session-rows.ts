import type { Kysely, Transaction } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";
import type { SessionEvent } from "../sessions/connectivity-writer.js";
import type { AdapterLink, TenantConnectionsElsewhere } from "../sessions/session-table.js";

/** What the connectivity writer asks of the cluster inside its transaction. */
export interface SharedSessions {
  /** Records the batch's opened sessions as held here and forgets its closed ones (those this node held). */
  write(tx: Transaction<Database>, batch: readonly SessionEvent[]): Promise<void>;
  /** Of these devices, those holding a session on another node: they stay online. */
  heldElsewhere(db: Kysely<Database> | Transaction<Database>, deviceIntIds: readonly number[]): Promise<Set<number>>;
  /** The batch's transaction committed (its session rows are visible to every node). */
  committed(batch: readonly SessionEvent[]): void;
}

/** Rows of one statement: 5 columns each, far below PostgreSQL's bound-parameter limit. */
const CHUNK = 500;

/**
 * This node's rows in `cluster_adapters` and `cluster_sessions`: which adapter streams and device sessions it
 * holds, so every node knows (health, online state across nodes). Session rows are written in the connectivity
 * writer's transaction, together with the device's online state, so a device stored online always has its row.
 */
export class SessionRows implements SharedSessions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly nodeId: string,
    private readonly logger: Logger,
    /** Told of the sessions opened or re-announced here once their rows are committed. */
    private readonly opened?: (events: readonly SessionEvent[]) => void,
  ) {}

  /** An adapter stream attached here (replacing its row wherever it was). */
  adapterAttached(link: Pick<AdapterLink, "instanceId" | "protocol" | "version" | "attachedAt">): void {
    const row = { nodeId: this.nodeId, protocol: link.protocol, version: link.version, attachedAt: link.attachedAt };
    void this.db
      .insertInto("clusterAdapters")
      .values({ instanceId: link.instanceId, ...row })
      .onConflict((oc) => oc.column("instanceId").doUpdateSet(row))
      .execute()
      .catch((err: unknown) => this.logger.warn({ err }, "recording an adapter stream failed"));
  }

  /** The adapter's stream here ended (its row stays if it already attached to another node). */
  adapterDetached(instanceId: string): void {
    void this.db
      .deleteFrom("clusterAdapters")
      .where("instanceId", "=", instanceId)
      .where("nodeId", "=", this.nodeId)
      .execute()
      .catch((err: unknown) => this.logger.warn({ err }, "forgetting an adapter stream failed"));
  }

  async write(tx: Transaction<Database>, batch: readonly SessionEvent[]): Promise<void> {
    // The last event of each session decides: open (a row here) or closed (no row of this node).
    const last = new Map<string, SessionEvent>();
    for (const e of batch) if (e.kind !== "state") last.set(e.sessionId, e);
    const open = [...last.values()].filter((e) => e.kind !== "closed" && e.instanceId);
    const closed = [...last.values()].filter((e) => e.kind === "closed").map((e) => e.sessionId);
    for (let i = 0; i < open.length; i += CHUNK) {
      const rows = open.slice(i, i + CHUNK).map((e) => ({
        sessionId: e.sessionId,
        deviceIntId: e.deviceIntId,
        nodeId: this.nodeId,
        instanceId: e.instanceId!,
        openedAt: e.at,
      }));
      await tx
        .insertInto("clusterSessions")
        .values(rows)
        .onConflict((oc) =>
          oc.column("sessionId").doUpdateSet((eb) => ({
            nodeId: eb.ref("excluded.nodeId"),
            instanceId: eb.ref("excluded.instanceId"),
            openedAt: eb.ref("excluded.openedAt"),
          })),
        )
        .execute();
    }
    for (let i = 0; i < closed.length; i += CHUNK)
      await tx
        .deleteFrom("clusterSessions")
        .where("sessionId", "in", closed.slice(i, i + CHUNK))
        .where("nodeId", "=", this.nodeId)
        .execute();
  }

  committed(batch: readonly SessionEvent[]): void {
    const open = batch.filter((e) => (e.kind === "opened" || e.kind === "announced") && e.instanceId);
    if (open.length > 0) this.opened?.(open);
  }

  /**
   * For an AuthenticateBatch's devices of tenants with `maxConnections`: each tenant's devices holding a session on
   * another node, and whether each device is one of them. One count per tenant and one lookup of the devices per
   * batch: counted per device, a storm of a limited tenant's devices read all of its sessions for each of them.
   */
  async tenantConnectionsElsewhere(
    devices: ReadonlyArray<{ tenantId: string; deviceIntId: number }>,
  ): Promise<Map<number, TenantConnectionsElsewhere>> {
    const counts = new Map<string, number>();
    for (const tenantId of new Set(devices.map((d) => d.tenantId))) {
      const row = await this.db
        .selectFrom("clusterSessions as s")
        .innerJoin("devices as d", "d.id", "s.deviceIntId")
        .select((eb) => eb.fn.count<string>("s.deviceIntId").distinct().as("devices"))
        .where("d.tenantId", "=", tenantId)
        .where("s.nodeId", "!=", this.nodeId)
        .executeTakeFirst();
      counts.set(tenantId, Number(row?.devices ?? 0));
    }
    const held = await this.heldElsewhere(
      this.db,
      devices.map((d) => d.deviceIntId),
    );
    return new Map(
      devices.map((d) => [d.deviceIntId, { devices: counts.get(d.tenantId)!, holdsDevice: held.has(d.deviceIntId) }]),
    );
  }

  async heldElsewhere(
    db: Kysely<Database> | Transaction<Database>,
    deviceIntIds: readonly number[],
  ): Promise<Set<number>> {
    const held = new Set<number>();
    for (let i = 0; i < deviceIntIds.length; i += CHUNK) {
      const rows = await db
        .selectFrom("clusterSessions")
        .select("deviceIntId")
        .distinct()
        .where("deviceIntId", "in", deviceIntIds.slice(i, i + CHUNK))
        .where("nodeId", "!=", this.nodeId)
        .execute();
      for (const r of rows) held.add(r.deviceIntId);
    }
    return held;
  }
}
