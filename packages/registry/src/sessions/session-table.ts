import { trackSessions } from "../ops/registry-metrics.js";
import type { AdapterLink, LiveSession } from "./adapter-link.js";
import { ParkedAdapters, type ParkedLink } from "./parked-adapters.js";
import { PendingSessions, type PendingSession, type PushedState } from "./pending-sessions.js";

// What the table's users hand it and take from it, importable beside it.
export type { AdapterLink, DownlinkCommand, LiveSession } from "./adapter-link.js";
export type { PendingSession } from "./pending-sessions.js";

/** A tenant's connections held on the other nodes (several nodes), for `maxConnections`. */
export interface TenantConnectionsElsewhere {
  /** Its devices holding a session on another node. */
  devices: number;
  /** Whether the device authenticating is one of them (it may always reconnect). */
  holdsDevice: boolean;
}

/** Revoked session ids remembered (their late or replayed uplinks are refused); the oldest are forgotten first. */
const REVOKED_LIMIT = 100_000;

/** An attached adapter stream and the sessions it reported. */
interface Attached {
  link: AdapterLink;
  sessions: Map<string, LiveSession>;
}

/**
 * Which adapter instance holds which device session, on this node. It is the
 * routing table for downlinks and kicks and the source of the health report.
 * In memory only: adapters re-announce their sessions in Hello after a restart.
 */
export class SessionTable {
  private readonly adapters = new Map<string, Attached>();
  private readonly parked = new ParkedAdapters();
  private readonly byDevice = new Map<number, Map<string, string>>(); // deviceIntId → sessionId → instanceId
  /** Devices holding a live session, per tenant: what maxConnections counts (with recent pending sessions). */
  private readonly byTenant = new Map<string, Set<number>>();
  /** Sessions authenticated but not reported open yet: what a kick or a push missed meanwhile. */
  private readonly pending = new PendingSessions();
  /** Sessions kicked on this node, with the reason: nothing more of theirs is stored. */
  private readonly revoked = new Map<string, string>();

  constructor() {
    trackSessions(this);
  }

  /** Records a session id handed out by Authenticate (and forgets pending ones older than a minute). */
  issued(sessionId: string, deviceIntId: number, tenantId = "", now = Date.now()): void {
    this.pending.issue(sessionId, deviceIntId, tenantId, now);
  }

  /**
   * The tenant's connections on this node: its devices with a live session or one authenticated within the last
   * ten seconds and not reported open yet. A device counts once however many sessions it holds.
   * Several nodes: `admits` adds the other nodes' count.
   */
  tenantConnections(tenantId: string, now = Date.now()): Set<number> {
    const live = this.byTenant.get(tenantId);
    return new Set([...(live ?? []), ...this.pending.devices(tenantId, now, live)]);
  }

  /**
   * True when the device may open one more session under its tenant's `maxConnections` (0 = unlimited): a device
   * already connected may always reconnect (its new session takes over the old one). Check and `issued` in the same
   * synchronous step, so concurrent authentications cannot both take the last place. Several nodes: `elsewhere` is
   * what the other nodes hold of the tenant (its devices with a session there, and whether this device is one).
   */
  admits(
    tenantId: string,
    deviceIntId: number,
    maxConnections: number,
    now = Date.now(),
    elsewhere: TenantConnectionsElsewhere = { devices: 0, holdsDevice: false },
  ): boolean {
    if (maxConnections <= 0) return true;
    // Counted, not copied: a copy of the tenant's live devices cost every authentication a pass over all of them.
    const live = this.byTenant.get(tenantId);
    if (elsewhere.holdsDevice || live?.has(deviceIntId)) return true;
    const pending = this.pending.devices(tenantId, now, live);
    if (pending.has(deviceIntId)) return true;
    return (live?.size ?? 0) + pending.size + elsewhere.devices < maxConnections;
  }

  /** Every attached adapter's link (tenant-wide pushes). */
  links(): AdapterLink[] {
    return [...this.adapters.values()].map((a) => a.link);
  }

  /** Takes what a just-opened session missed while pending (undefined when nothing is known of it). */
  takePending(sessionId: string): PendingSession | undefined {
    return this.pending.take(sessionId);
  }

  /** Notes that the device's not-yet-open sessions missed a push of `what`. */
  markStale(deviceIntId: number, what: PushedState): void {
    for (const [, p] of this.pending.of(deviceIntId)) p.stale.add(what);
  }

  /**
   * Registers an adapter stream. A previous stream of the same instance is replaced; its sessions are returned,
   * since the new stream's Hello says which of them are still alive.
   */
  attach(link: AdapterLink): LiveSession[] {
    const old = this.adapters.get(link.instanceId);
    const previous = old ? [...old.sessions.values()] : [];
    for (const s of previous) this.unindex(s);
    this.adapters.set(link.instanceId, { link, sessions: new Map() });
    return previous;
  }

  /** Forgets an adapter stream (only if `link` is still the current one); returns its sessions. */
  detach(link: AdapterLink): LiveSession[] {
    const cur = this.adapters.get(link.instanceId);
    if (!cur || cur.link !== link) return [];
    this.adapters.delete(link.instanceId);
    const sessions = [...cur.sessions.values()];
    for (const s of sessions) this.unindex(s);
    return sessions;
  }

  /**
   * Keeps a detached adapter's sessions for `graceMs`: if the same instance
   * reconnects, its Hello says which are still alive (see `unpark`); if not,
   * `onExpire` gets them all so the devices can be marked offline. With `link`, health lists the instance meanwhile.
   */
  park(
    instanceId: string,
    sessions: LiveSession[],
    graceMs: number,
    onExpire: (sessions: LiveSession[]) => void,
    link?: ParkedLink,
  ): void {
    this.parked.park(instanceId, sessions, graceMs, onExpire, link);
  }

  /** Takes back the parked sessions of a reconnecting instance (empty when none). */
  unpark(instanceId: string): LiveSession[] {
    return this.parked.unpark(instanceId);
  }

  /** Cancels every grace timer (the node is stopping; the sessions stay as stored). */
  clearParked(): void {
    this.parked.clear();
  }

  /** Records an open session; returns false when the adapter is not attached. */
  open(instanceId: string, session: LiveSession): boolean {
    const a = this.adapters.get(instanceId);
    if (!a) return false;
    a.sessions.set(session.sessionId, session);
    let m = this.byDevice.get(session.deviceIntId);
    if (!m) this.byDevice.set(session.deviceIntId, (m = new Map()));
    m.set(session.sessionId, instanceId);
    let t = this.byTenant.get(session.tenantId);
    if (!t) this.byTenant.set(session.tenantId, (t = new Set()));
    t.add(session.deviceIntId);
    return true;
  }

  /** Marks a session's device asleep or awake; returns the session, or undefined when unknown. */
  setSleeping(instanceId: string, sessionId: string, sleeping: boolean): LiveSession | undefined {
    const s = this.adapters.get(instanceId)?.sessions.get(sessionId);
    if (s) s.sleeping = sleeping;
    return s;
  }

  /** Removes a session; returns it, or undefined when unknown. */
  close(instanceId: string, sessionId: string): LiveSession | undefined {
    const s = this.adapters.get(instanceId)?.sessions.get(sessionId);
    if (!s) return undefined;
    this.adapters.get(instanceId)!.sessions.delete(sessionId);
    this.unindex(s);
    return s;
  }

  /** True while the device holds at least one session on this node. */
  isOnline(deviceIntId: number): boolean {
    return (this.byDevice.get(deviceIntId)?.size ?? 0) > 0;
  }

  /** The device's most recent session on this node (its address and keepalive are the device's), if any. */
  latestSession(deviceIntId: number): LiveSession | undefined {
    const m = this.byDevice.get(deviceIntId);
    if (!m) return undefined;
    const [sessionId, instanceId] = [...m.entries()].at(-1)!;
    return this.adapters.get(instanceId)?.sessions.get(sessionId);
  }

  /** True for a session live or pending on this node (one whose state this node knows). */
  knows(sessionId: string): boolean {
    if (this.pending.has(sessionId)) return true;
    for (const a of this.adapters.values()) if (a.sessions.has(sessionId)) return true;
    return false;
  }

  /** Marks a session revoked: its uplinks are refused from now on. */
  revoke(sessionId: string, reason: string): void {
    this.revoked.delete(sessionId);
    this.revoked.set(sessionId, reason);
    if (this.revoked.size > REVOKED_LIMIT) this.revoked.delete(this.revoked.keys().next().value!);
  }

  /** Why the session was revoked; undefined when it was not. */
  revokedReason(sessionId: string): string | undefined {
    return this.revoked.get(sessionId);
  }

  /** The adapter of the device's most recent session, for downlinks. */
  route(deviceIntId: number): AdapterLink | undefined {
    const m = this.byDevice.get(deviceIntId);
    if (!m || m.size === 0) return undefined;
    const instanceId = [...m.values()].at(-1)!;
    return this.adapters.get(instanceId)?.link;
  }

  /** Every adapter holding a session of the device (for kicks). */
  linksOf(deviceIntId: number): AdapterLink[] {
    const ids = new Set(this.byDevice.get(deviceIntId)?.values() ?? []);
    return [...ids].flatMap((id) => this.adapters.get(id)?.link ?? []);
  }

  /** Several nodes: told of every kick made here, so the nodes holding the device's other sessions kick them too. */
  remote: { kicked(deviceIntId: number, reason: string): void } | undefined;

  /**
   * Closes every session of the device at once (blocked, deleted, credentials
   * changed), including those authenticated but not reported open yet, here and on the other nodes.
   */
  kick(deviceIntId: number, reason: string): void {
    this.kickHere(deviceIntId, reason);
    this.remote?.kicked(deviceIntId, reason);
  }

  /** `kick` on this node only (a kick routed from another node). */
  kickHere(deviceIntId: number, reason: string): void {
    for (const sessionId of this.byDevice.get(deviceIntId)?.keys() ?? []) this.revoke(sessionId, reason);
    for (const link of this.linksOf(deviceIntId)) link.kick(deviceIntId, reason);
    for (const [sessionId, p] of this.pending.of(deviceIntId)) {
      p.revoked = reason;
      this.revoke(sessionId, reason);
    }
  }

  /**
   * Closes one session held here, replaced by a newer session of its device on another adapter (several nodes): its
   * adapter kicks the device's connections there. False when this node does not hold it.
   */
  replaceHere(deviceIntId: number, sessionId: string, reason: string): boolean {
    const instanceId = this.byDevice.get(deviceIntId)?.get(sessionId);
    const link = instanceId === undefined ? undefined : this.adapters.get(instanceId)?.link;
    link?.kick(deviceIntId, reason);
    return link !== undefined;
  }

  /** Snapshot for the health endpoint and the metrics: `sessions` counts sessions, `connectedDevices` devices. */
  snapshot(): Array<{
    instanceId: string;
    protocol: number;
    version: string;
    attachedAt: number;
    connectedDevices: number;
    sessions: number;
  }> {
    return [...this.adapters.values()].map(({ link, sessions }) => ({
      instanceId: link.instanceId,
      protocol: link.protocol,
      version: link.version,
      attachedAt: link.attachedAt,
      connectedDevices: new Set([...sessions.values()].map((s) => s.deviceIntId)).size,
      sessions: sessions.size,
    }));
  }

  /** Detached adapters whose sessions wait out the grace (those parked with their link), for the health endpoint. */
  parkedSnapshot(): Array<{
    instanceId: string;
    protocol: number;
    version: string;
    attachedAt: number;
    detachedAt: number;
    sessions: number;
  }> {
    return this.parked.snapshot();
  }

  private unindex(s: LiveSession): void {
    const m = this.byDevice.get(s.deviceIntId);
    m?.delete(s.sessionId);
    if (m && m.size > 0) return;
    this.byDevice.delete(s.deviceIntId);
    const t = this.byTenant.get(s.tenantId);
    t?.delete(s.deviceIntId);
    if (t && t.size === 0) this.byTenant.delete(s.tenantId);
  }
}
