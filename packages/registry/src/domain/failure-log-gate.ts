/** Connect logs of failed DTLS authentications one client address may write per window. */
const PER_WINDOW = 10;
const WINDOW_MS = 60_000;
/** Addresses remembered at once; beyond it the oldest windows go first. */
const MAX_ADDRESSES = 10_000;

/**
 * Bounds the connect logs that failed DTLS handshakes write, per client address: an unknown identity or a wrong key
 * costs a client one cookie round trip, so a flood from one address could otherwise write a row a handshake and fill
 * the database. Each address writes at most `perWindow` rows per window; the rest are counted and dropped.
 */
export class FailureLogGate {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perWindow = PER_WINDOW,
    private readonly windowMs = WINDOW_MS,
    private readonly maxAddresses = MAX_ADDRESSES,
  ) {}

  /** Whether a failure from `address` at `now` may write its connect log (and counts it). */
  allow(address: string, now: number): boolean {
    let w = this.windows.get(address);
    if (w && now - w.start >= this.windowMs) {
      this.windows.delete(address);
      w = undefined;
    }
    if (!w) {
      this.evict(now);
      w = { start: now, count: 0 };
      this.windows.set(address, w);
    }
    w.count++;
    return w.count <= this.perWindow;
  }

  /** Makes room for one more address: expired windows first, then the oldest (Map order is insertion order). */
  private evict(now: number): void {
    if (this.windows.size < this.maxAddresses) return;
    for (const [address, w] of this.windows) {
      if (now - w.start >= this.windowMs) this.windows.delete(address);
    }
    const oldest = this.windows.keys().next();
    if (this.windows.size >= this.maxAddresses && !oldest.done) this.windows.delete(oldest.value);
  }
}

/** The registry process's gate (connect logs are the node's writes; each node bounds its own). */
export const dtlsFailureLogs = new FailureLogGate();
