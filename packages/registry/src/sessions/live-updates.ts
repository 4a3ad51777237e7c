import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { deviceIdsByPolicy, policiesOfDevices } from "../domain/policies.js";
import { retainedOfDevices } from "../domain/retained.js";
import { subscriptionsOfDevices } from "../domain/subscriptions.js";
import type { PushedState } from "./pending-sessions.js";
import type { SessionTable } from "./session-table.js";

/** Where changes go for the sessions other nodes hold (several nodes; see cluster/cluster.ts). */
export interface RemoteUpdates {
  policiesChanged(deviceIntIds: number[]): void;
  subscriptionsChanged(deviceIntIds: number[]): void;
  retainedChanged(deviceIntIds: number[]): void;
  tenantLimitsChanged(tenantId: string, maxUplinkRate: number): void;
}

/**
 * Pushes a device's current policies, proxy subscriptions or retained messages to the adapters
 * holding its live sessions, so a change made through the API applies at
 * once. Offline devices need nothing: they get both when they authenticate.
 * Pushes run one after another and each reads the stored state when it runs,
 * so the last push a device gets always carries the latest state. A push to
 * many devices (a policy edited, an adapter's sessions re-announced) reads
 * their state in a few queries, not one per device.
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
      for (const id of deviceIntIds) this.sessions.markStale(id, "policies");
      const held = deviceIntIds.filter((id) => this.sessions.linksOf(id).length > 0);
      if (held.length === 0) return;
      const rules = await policiesOfDevices(this.db, held);
      for (const id of held) for (const link of this.sessions.linksOf(id)) link.updatePolicies(id, rules.get(id) ?? []);
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
    return this.subscriptionsChangedHere([deviceIntId]);
  }

  /** `subscriptionsChanged` for the sessions of this node only. */
  subscriptionsChangedHere(deviceIntIds: readonly number[]): Promise<void> {
    return this.run(async () => {
      for (const id of deviceIntIds) this.sessions.markStale(id, "subscriptions");
      const held = deviceIntIds.filter((id) => this.sessions.linksOf(id).length > 0);
      if (held.length === 0) return;
      const subs = await subscriptionsOfDevices(this.db, held);
      for (const id of held) {
        const list = (subs.get(id) ?? []).map((s) => ({ topic: s.topic, qos: s.qos }));
        for (const link of this.sessions.linksOf(id)) link.updateSubscriptions(id, list);
      }
    });
  }

  /** These devices' retained messages changed (a retained command or uplink set or cleared). */
  retainedChanged(deviceIntIds: Iterable<number>): Promise<void> {
    const ids = [...new Set(deviceIntIds)];
    if (ids.length > 0) this.remote?.retainedChanged(ids);
    return this.retainedChangedHere(ids);
  }

  /** `retainedChanged` for the sessions of this node only. */
  retainedChangedHere(deviceIntIds: readonly number[]): Promise<void> {
    return this.run(async () => {
      for (const id of deviceIntIds) this.sessions.markStale(id, "retained");
      const held = deviceIntIds.filter((id) => this.sessions.linksOf(id).length > 0);
      if (held.length === 0) return;
      const retained = await retainedOfDevices(this.db, held);
      for (const id of held)
        for (const link of this.sessions.linksOf(id)) link.updateRetained(id, retained.get(id) ?? []);
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

  /**
   * Sessions just opened, or re-announced after an adapter's stream came back: sends what they missed (while pending,
   * or while the link was down).
   */
  async sessionsOpened(deviceIntIds: readonly number[], missed: ReadonlySet<PushedState>): Promise<void> {
    if (missed.has("policies")) await this.policiesChangedHere(deviceIntIds);
    if (missed.has("subscriptions")) await this.subscriptionsChangedHere(deviceIntIds);
    if (missed.has("retained")) await this.retainedChangedHere(deviceIntIds);
  }

  private run(task: () => Promise<void>): Promise<void> {
    const done = this.queue.then(task);
    this.queue = done.catch(() => undefined);
    return done;
  }
}
