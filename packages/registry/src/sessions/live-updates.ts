import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { deviceIdsByPolicy, policiesOfDevice } from "../domain/policies.js";
import { subscriptionsOfDevice } from "../domain/subscriptions.js";
import type { SessionTable } from "./session-table.js";

/** Where changes go for the sessions other nodes hold (several nodes; see cluster/cluster.ts). */
export interface RemoteUpdates {
  policiesChanged(deviceIntIds: number[]): void;
  subscriptionsChanged(deviceIntIds: number[]): void;
  tenantLimitsChanged(tenantId: string, maxUplinkRate: number): void;
}

/**
 * Pushes a device's current policies or proxy subscriptions to the adapters
 * holding its live sessions, so a change made through the API applies at
 * once. Offline devices need nothing: they get both when they authenticate.
 * Pushes run one after another and each reads the stored state when it runs,
 * so the last push a device gets always carries the latest state.
 */
export class LiveUpdates {
  private queue: Promise<void> = Promise.resolve();
  /** Several nodes: told of every change pushed here, so the nodes holding other sessions push it too. */
  remote: RemoteUpdates | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly sessions: SessionTable,
  ) {}

  /** The policies bound to these devices changed (bind, unbind). */
  policiesChanged(deviceIntIds: Iterable<number>): Promise<void> {
    const ids = [...new Set(deviceIntIds)];
    if (ids.length > 0) this.remote?.policiesChanged(ids);
    return this.policiesChangedHere(ids);
  }

  /** `policiesChanged` for the sessions of this node only. */
  policiesChangedHere(deviceIntIds: readonly number[]): Promise<void> {
    return this.run(async () => {
      for (const id of deviceIntIds) {
        this.sessions.markStale(id, "policies");
        const links = this.sessions.linksOf(id);
        if (links.length === 0) continue;
        const rules = await policiesOfDevice(this.db, id);
        for (const link of links) link.updatePolicies(id, rules);
      }
    });
  }

  /** These policies of the tenant were edited: every device bound to one gets its new rules. */
  async policiesEdited(tenantId: string, policyIntIds: number[]): Promise<void> {
    const bound = await deviceIdsByPolicy(this.db, tenantId, policyIntIds);
    await this.policiesChanged([...bound.values()].flat());
  }

  /** The device's proxy subscriptions changed (added, removed). */
  subscriptionsChanged(deviceIntId: number): Promise<void> {
    this.remote?.subscriptionsChanged([deviceIntId]);
    return this.subscriptionsChangedHere(deviceIntId);
  }

  /** `subscriptionsChanged` for the sessions of this node only. */
  subscriptionsChangedHere(deviceIntId: number): Promise<void> {
    return this.run(async () => {
      this.sessions.markStale(deviceIntId, "subscriptions");
      const links = this.sessions.linksOf(deviceIntId);
      if (links.length === 0) return;
      const subs = (await subscriptionsOfDevice(this.db, deviceIntId)).map((s) => ({ topic: s.topic, qos: s.qos }));
      for (const link of links) link.updateSubscriptions(deviceIntId, subs);
    });
  }

  /** The tenant's uplink rate limit changed: every attached adapter applies it to the tenant's traffic at once. */
  tenantLimitsChanged(tenantId: string, maxUplinkRate: number): void {
    this.remote?.tenantLimitsChanged(tenantId, maxUplinkRate);
    this.tenantLimitsChangedHere(tenantId, maxUplinkRate);
  }

  /** `tenantLimitsChanged` for the adapters of this node only. */
  tenantLimitsChangedHere(tenantId: string, maxUplinkRate: number): void {
    for (const link of this.sessions.links()) link.updateTenantLimits(tenantId, maxUplinkRate);
  }

  /** A session just opened: sends what it missed while it was pending. */
  async sessionOpened(deviceIntId: number, missed: ReadonlySet<"policies" | "subscriptions">): Promise<void> {
    if (missed.has("policies")) await this.policiesChangedHere([deviceIntId]);
    if (missed.has("subscriptions")) await this.subscriptionsChangedHere(deviceIntId);
  }

  private run(task: () => Promise<void>): Promise<void> {
    const done = this.queue.then(task);
    this.queue = done.catch(() => undefined);
    return done;
  }
}
