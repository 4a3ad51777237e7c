/** What the registry pushes to a device's live sessions when it changes (see LiveUpdates). */
export type PushedState = "policies" | "subscriptions" | "retained";

/** What happened to a device between its authentication and its SessionOpened. */
export interface PendingSession {
  deviceIntId: number;
  /** The device's tenant ("" when not told): pending sessions count toward its maxConnections. */
  tenantId: string;
  issuedAt: number;
  /** Set when the device was revoked meanwhile: the session must be closed as soon as it opens. */
  revoked?: string;
  /** Pushes the session missed because it was not open yet. */
  stale: Set<PushedState>;
}

/** How long an authenticated session may take to be reported open, ms. */
const PENDING_TTL_MS = 60_000;
/**
 * How long an authenticated session not yet reported open counts toward its tenant's maxConnections, ms: adapters
 * report the opening right after the answer, so one that never does (the device hung up first) frees its place
 * soon.
 */
const PENDING_COUNT_MS = 10_000;

/**
 * Sessions authenticated but not reported open yet, oldest first (SessionTable's): a kick or push in that window
 * would find no session, so it is remembered here and applied when the SessionOpened arrives. Indexed by device and
 * by tenant: a push, a kick or an admission looks at its device's or tenant's alone instead of every pending session
 * of the node (a connect storm leaves thousands, the abandoned ones for a minute).
 */
export class PendingSessions {
  private readonly pending = new Map<string, PendingSession>();
  private readonly ofDevice = new Map<number, Set<string>>();
  private readonly ofTenant = new Map<string, Set<string>>();

  /** Records a session id handed out by Authenticate (and forgets pending ones older than a minute). */
  issue(sessionId: string, deviceIntId: number, tenantId: string, now: number): void {
    for (const [id, p] of this.pending) {
      if (now - p.issuedAt < PENDING_TTL_MS) break;
      this.take(id);
    }
    this.take(sessionId);
    this.pending.set(sessionId, { deviceIntId, tenantId, issuedAt: now, stale: new Set() });
    addTo(this.ofDevice, deviceIntId, sessionId);
    addTo(this.ofTenant, tenantId, sessionId);
  }

  /** Forgets a pending session; answers it (undefined when it was not pending). */
  take(sessionId: string): PendingSession | undefined {
    const p = this.pending.get(sessionId);
    if (!p) return undefined;
    this.pending.delete(sessionId);
    removeFrom(this.ofDevice, p.deviceIntId, sessionId);
    removeFrom(this.ofTenant, p.tenantId, sessionId);
    return p;
  }

  /** True while the session is pending. */
  has(sessionId: string): boolean {
    return this.pending.has(sessionId);
  }

  /** The pending sessions of one device, with their ids. */
  *of(deviceIntId: number): Generator<[string, PendingSession]> {
    for (const id of this.ofDevice.get(deviceIntId) ?? []) yield [id, this.pending.get(id)!];
  }

  /**
   * The tenant's devices authenticated within the last ten seconds and not reported open yet, but those in `live`
   * (the devices it holds a live session of).
   */
  devices(tenantId: string, now: number, live: ReadonlySet<number> | undefined): Set<number> {
    const devices = new Set<number>();
    for (const id of this.ofTenant.get(tenantId) ?? []) {
      const p = this.pending.get(id)!;
      if (now - p.issuedAt < PENDING_COUNT_MS && !live?.has(p.deviceIntId)) devices.add(p.deviceIntId);
    }
    return devices;
  }
}

/** Adds `value` to the set under `key`, making the set when missing. */
function addTo<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  if (set) set.add(value);
  else index.set(key, new Set([value]));
}

/** Removes `value` from the set under `key`, and the set once empty. */
function removeFrom<K, V>(index: Map<K, Set<V>>, key: K, value: V): void {
  const set = index.get(key);
  if (set?.delete(value) && set.size === 0) index.delete(key);
}
