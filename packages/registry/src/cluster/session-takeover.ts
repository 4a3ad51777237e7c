import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";
import type { SessionEvent } from "../sessions/connectivity-writer.js";

/** Protocols whose device holds one connection at a time (MQTT client id, LwM2M endpoint): a newer one replaces it. */
const ONE_CONNECTION = new Set([1, 3]);
/** Devices looked up in one statement. */
const CHUNK = 500;

/** Why a replaced session is closed, as its connect log says. */
export const REPLACED_REASON = "replaced by a newer session of the device on another adapter";

/** A session held somewhere in the cluster, as `cluster_sessions` and `cluster_adapters` record it. */
export interface HeldSession {
  sessionId: string;
  deviceIntId: number;
  nodeId: string;
  instanceId: string;
  openedAt: number;
  protocol: number;
}

/** A session to close because a newer one of its device took over. */
export interface Replaced {
  deviceIntId: number;
  sessionId: string;
  nodeId: string;
}

/**
 * The sessions that lose to a newer one: per device and one-connection protocol, the session opened last (ties: the
 * greater session id) wins, and every session of the device on another adapter instance is replaced. Every node
 * reaching this decision from the same rows picks the same winner, so two nodes cannot close each other's session.
 */
export function replacedSessions(held: readonly HeldSession[]): Replaced[] {
  const groups = new Map<string, HeldSession[]>();
  for (const s of held) {
    if (!ONE_CONNECTION.has(s.protocol)) continue;
    const key = `${s.deviceIntId}:${s.protocol}`;
    const g = groups.get(key);
    if (g) g.push(s);
    else groups.set(key, [s]);
  }
  const replaced: Replaced[] = [];
  for (const g of groups.values()) {
    if (g.length < 2) continue;
    const newest = g.reduce((a, b) =>
      b.openedAt > a.openedAt || (b.openedAt === a.openedAt && b.sessionId > a.sessionId) ? b : a,
    );
    for (const s of g)
      if (s.instanceId !== newest.instanceId)
        replaced.push({ deviceIntId: s.deviceIntId, sessionId: s.sessionId, nodeId: s.nodeId });
  }
  return replaced;
}

/**
 * A device seen through two adapters at once (several nodes: a reconnect race through another node) ends with one
 * session. Checked after the opening's session row committed: of two nodes committing at the same time, the later
 * one's read sees both rows, so at least one of them finds the pair, and both would pick the same survivor.
 */
export class SessionTakeover {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly nodeId: string,
    /** Closes a session this node holds (its adapter is told to kick the device's connection). */
    private readonly closeHere: (deviceIntId: number, sessionId: string, reason: string) => void,
    /** Asks the other nodes to close sessions they hold. */
    private readonly closeElsewhere: (sessions: Array<{ deviceIntId: number; sessionId: string }>) => void,
    private readonly logger: Logger,
  ) {}

  /** Sessions opened or re-announced here were recorded: older sessions of their devices elsewhere are closed. */
  opened(events: readonly SessionEvent[]): void {
    const ids = [...new Set(events.map((e) => e.deviceIntId))];
    this.check(ids).catch((err: unknown) => this.logger.error({ err }, "checking for replaced sessions failed"));
  }

  /** Looks up the devices' sessions on every node and closes those a newer one replaced. Answers how many. */
  async check(deviceIntIds: readonly number[]): Promise<number> {
    let count = 0;
    for (let i = 0; i < deviceIntIds.length; i += CHUNK) {
      const rows = await this.db
        .selectFrom("clusterSessions as s")
        .innerJoin("clusterAdapters as a", "a.instanceId", "s.instanceId")
        .select(["s.sessionId", "s.deviceIntId", "s.nodeId", "s.instanceId", "s.openedAt", "a.protocol"])
        .where("s.deviceIntId", "in", deviceIntIds.slice(i, i + CHUNK))
        .execute();
      const replaced = replacedSessions(
        rows.map((r) => ({ ...r, deviceIntId: Number(r.deviceIntId), openedAt: Number(r.openedAt) })),
      );
      const elsewhere = replaced.filter((r) => r.nodeId !== this.nodeId);
      for (const r of replaced)
        if (r.nodeId === this.nodeId) this.closeHere(r.deviceIntId, r.sessionId, REPLACED_REASON);
      if (elsewhere.length > 0)
        this.closeElsewhere(elsewhere.map(({ deviceIntId, sessionId }) => ({ deviceIntId, sessionId })));
      if (replaced.length > 0) this.logger.info({ sessions: replaced.length }, "sessions replaced by newer ones");
      count += replaced.length;
    }
    return count;
  }
}
