import type { ClientIdentity } from "./certificate-exchange.js";
import type { Clock } from "./clock.js";

/** What an abbreviated handshake (RFC 5246 §7.3) needs of a finished one: its master secret and who the peer was. */
export interface CachedSession {
  id: Buffer;
  master: Buffer;
  suiteId: number;
  /** Whether the master secret is an extended one (RFC 7627): a resumption must agree (§5.3). */
  extended: boolean;
  identity: Buffer;
  keyIndex: number;
  client?: ClientIdentity;
}

/** Limits of the session cache: entries kept, and how long one may be resumed (RFC 5246 §F.1.4: ≤ 24 h). */
export interface SessionCacheOptions {
  /** Entries kept; the oldest is dropped beyond it. Default 10,000 (about 150 bytes each). */
  maxEntries?: number;
  /** Lifetime of an entry from its full handshake, in ms. Default one hour. */
  lifetimeMs?: number;
}

/**
 * Finished sessions by session id, bounded in count (oldest dropped first) and age. An entry is forgotten when its
 * session is ended by the server or by a fatal alert (RFC 5246 §7.2.2), so a refused device cannot resume.
 */
export class SessionCache {
  private readonly entries = new Map<string, { session: CachedSession; expires: number }>();
  private readonly maxEntries: number;
  private readonly lifetimeMs: number;

  constructor(
    private readonly clock: Pick<Clock, "now">,
    opts: SessionCacheOptions = {},
  ) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.lifetimeMs = opts.lifetimeMs ?? 3_600_000;
  }

  get size(): number {
    return this.entries.size;
  }

  put(session: CachedSession): void {
    if (this.maxEntries <= 0) return;
    const key = session.id.toString("hex");
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { session, expires: this.clock.now() + this.lifetimeMs });
  }

  /** The session with this id, if it is kept and not expired. */
  get(id: Buffer): CachedSession | undefined {
    if (id.length === 0) return undefined;
    const key = id.toString("hex");
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.clock.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.session;
  }

  delete(id: Buffer): void {
    this.entries.delete(id.toString("hex"));
  }

  /** Drops every session of this identity (a device blocked, its key or certificate changed). */
  forgetIdentity(identity: Buffer): void {
    for (const [key, { session }] of this.entries) if (session.identity.equals(identity)) this.entries.delete(key);
  }
}
