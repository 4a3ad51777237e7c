import type { DeviceSession, ProxySubscription, SessionInfo, TopicPolicy } from "./registry-client.js";

/** A session the adapter holds open, with what SessionOpened/Hello report about it. */
export interface LiveSession {
  readonly session: DeviceSession;
  readonly info: SessionInfo;
  readonly openedAtMs: number;
}

/**
 * The sessions alive on this adapter instance: listed in every Hello, and the
 * target of policy updates. Shared by the gRPC client and the fake. Also kept
 * by device: after a Hello the registry pushes policies and subscriptions to
 * every re-announced session, two updates per device, and finding a device's
 * sessions by scanning all of them made that O(sessions²) (10,000 sessions:
 * 200 million visits, the adapter's event loop blocked for minutes).
 */
export class LiveSessions {
  private readonly byId = new Map<string, LiveSession>();
  /** Session ids by device: usually one, two during a takeover. */
  private readonly idsByDevice = new Map<number, string[]>();

  /** Records an opened session (idempotent by session id). */
  open(session: DeviceSession, info: SessionInfo, openedAtMs = Date.now()): LiveSession {
    const live = { session, info, openedAtMs };
    const deviceIntId = session.device.deviceIntId;
    const before = this.byId.get(session.sessionId);
    this.byId.set(session.sessionId, live);
    if (before?.session.device.deviceIntId === deviceIntId) return live;
    if (before) this.unindex(before);
    const ids = this.idsByDevice.get(deviceIntId);
    if (ids) ids.push(session.sessionId);
    else this.idsByDevice.set(deviceIntId, [session.sessionId]);
    return live;
  }

  /** The live session with this id, if any. */
  get(sessionId: string): LiveSession | undefined {
    return this.byId.get(sessionId);
  }

  /** Marks a live session's device asleep or awake; false when the session is not open. */
  setSleeping(sessionId: string, sleeping: boolean): boolean {
    const live = this.byId.get(sessionId);
    if (!live) return false;
    this.byId.set(sessionId, { ...live, info: { ...live.info, sleeping } });
    return true;
  }

  /** Forgets a session; false when it was not open. */
  close(sessionId: string): boolean {
    const live = this.byId.get(sessionId);
    if (!live) return false;
    this.unindex(live);
    return this.byId.delete(sessionId);
  }

  /** Every live session, oldest first. */
  all(): LiveSession[] {
    return [...this.byId.values()];
  }

  /** Live sessions of one device (usually one; two during a takeover), oldest first. */
  ofDevice(deviceIntId: number): LiveSession[] {
    return (this.idsByDevice.get(deviceIntId) ?? []).map((id) => this.byId.get(id)!);
  }

  /** Replaces the policies of every live session of the device; returns how many changed. */
  applyPolicies(deviceIntId: number, policies: readonly TopicPolicy[]): number {
    const sessions = this.ofDevice(deviceIntId);
    for (const l of sessions) l.session.policies = policies;
    return sessions.length;
  }

  /** Replaces the proxy subscriptions of every live session of the device; returns the list they held before. */
  applySubscriptions(deviceIntId: number, subscriptions: readonly ProxySubscription[]): readonly ProxySubscription[] {
    const sessions = this.ofDevice(deviceIntId);
    const previous = sessions[0]?.session.subscriptions ?? [];
    for (const l of sessions) l.session.subscriptions = subscriptions;
    return previous;
  }

  get size(): number {
    return this.byId.size;
  }

  private unindex(live: LiveSession): void {
    const deviceIntId = live.session.device.deviceIntId;
    const rest = (this.idsByDevice.get(deviceIntId) ?? []).filter((id) => id !== live.session.sessionId);
    if (rest.length > 0) this.idsByDevice.set(deviceIntId, rest);
    else this.idsByDevice.delete(deviceIntId);
  }
}
