import type { AdapterLink, LiveSession } from "./adapter-link.js";

/** What health shows of a detached adapter: its protocol, version and when it attached. */
export type ParkedLink = Pick<AdapterLink, "protocol" | "version" | "attachedAt">;

/** A detached adapter's sessions kept through the grace, with what health shows of the adapter. */
interface Parked {
  sessions: LiveSession[];
  timer: NodeJS.Timeout;
  link?: ParkedLink | undefined;
  detachedAt: number;
}

/**
 * Detached adapters' sessions waiting out the grace (SessionTable's park and unpark): an instance that reconnects in
 * time takes them back, else they expire together so the devices can be marked offline.
 */
export class ParkedAdapters {
  private readonly parked = new Map<string, Parked>();

  /**
   * Keeps `sessions` for `graceMs`, replacing what the instance had parked; `onExpire` gets them all if the instance
   * does not take them back in time. With `link`, `snapshot` lists the instance meanwhile.
   */
  park(
    instanceId: string,
    sessions: LiveSession[],
    graceMs: number,
    onExpire: (sessions: LiveSession[]) => void,
    link?: ParkedLink,
  ): void {
    this.unpark(instanceId); // a newer detach replaces an older one
    if (sessions.length === 0) return;
    const timer = setTimeout(() => {
      this.parked.delete(instanceId);
      onExpire(sessions);
    }, graceMs);
    timer.unref();
    this.parked.set(instanceId, { sessions, timer, link, detachedAt: Date.now() });
  }

  /** Takes back the parked sessions of a reconnecting instance (empty when none). */
  unpark(instanceId: string): LiveSession[] {
    const p = this.parked.get(instanceId);
    if (!p) return [];
    clearTimeout(p.timer);
    this.parked.delete(instanceId);
    return p.sessions;
  }

  /** Cancels every grace timer and forgets the sessions. */
  clear(): void {
    for (const p of this.parked.values()) clearTimeout(p.timer);
    this.parked.clear();
  }

  /** The instances parked with their link, for the health endpoint. */
  snapshot(): Array<ParkedLink & { instanceId: string; detachedAt: number; sessions: number }> {
    return [...this.parked].flatMap(([instanceId, p]) =>
      p.link ? [{ instanceId, ...p.link, detachedAt: p.detachedAt, sessions: p.sessions.length }] : [],
    );
  }
}
