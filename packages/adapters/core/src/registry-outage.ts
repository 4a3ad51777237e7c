import type { Logger } from "pino";

/** How a {@link RegistryOutage} paces its lines; injectable for tests. */
export interface RegistryOutageOptions {
  /** Least time between two "still unreachable" lines of one outage, ms (default 30 s). */
  readonly summaryEveryMs?: number;
  /**
   * How long a link must stay up to count as recovered, ms (default 2 s): a link that drops again sooner (a node
   * that answers Hello, then ends the stream, e.g. while its database is down) continues the same outage.
   */
  readonly stableMs?: number;
  /** Called once the link has been up for `stableMs`: the reconnect backoff starts over from its first step. */
  readonly onStable?: () => void;
}

/**
 * What an adapter logs about its link to the registry, so an outage of any length is a handful of lines, not one per
 * reconnect attempt: one warning when it starts, at most one "still unreachable" summary per `summaryEveryMs` while
 * it lasts (attempts and time so far), and one when the link is back. Every attempt is still logged at debug.
 * A link that comes up and drops again within `stableMs` is a flapping link: it logs nothing new (the summary lines
 * count its attempts) until it has stayed up.
 */
export class RegistryOutage {
  private down = false;
  private since = 0;
  private attempts = 0;
  private lastSummary = 0;
  /** When the link last came up (HelloAck), 0 when it is not up. */
  private upAt = 0;
  /** The last recovery came while this outage was flapping: its line waits until the link proved stable. */
  private flapping = false;
  /** What the deferred recovery line of a flapping link will say. */
  private pendingDetails: Record<string, unknown> = {};
  private stableTimer: NodeJS.Timeout | undefined;
  private readonly summaryEveryMs: number;
  private readonly stableMs: number;

  constructor(
    private readonly log: Logger,
    private readonly options: RegistryOutageOptions = {},
  ) {
    this.summaryEveryMs = options.summaryEveryMs ?? 30_000;
    this.stableMs = options.stableMs ?? 2_000;
  }

  /** Whether an outage is under way (the link is not up, or came up too shortly ago to count). */
  get ongoing(): boolean {
    return this.down || this.flapping;
  }

  /** A stream failed or could not open; `details` go on each line (reason, node, retry delay, pending uplinks). */
  failed(details: Record<string, unknown>): void {
    const now = Date.now();
    const wasUp = this.upAt > 0;
    const flap = wasUp && now - this.upAt < this.stableMs && this.since > 0;
    this.upAt = 0;
    clearTimeout(this.stableTimer);
    if (this.down) return this.again(details, now);
    this.down = true;
    if (flap) {
      this.flapping = true;
      return this.again(details, now);
    }
    this.since = now;
    this.lastSummary = now;
    this.attempts = 1;
    this.flapping = false;
    if (wasUp) this.log.warn(details, "registry stream lost; reconnecting");
    else this.log.warn(details, "registry not reachable; retrying");
  }

  /** The registry answered Hello: the link is up. */
  up(details: Record<string, unknown>): void {
    const now = Date.now();
    this.upAt = now;
    clearTimeout(this.stableTimer);
    this.stableTimer = setTimeout(() => this.stable(), this.stableMs);
    this.stableTimer.unref?.();
    if (!this.down) {
      if (this.since === 0) this.log.info(details, "registry link up");
      return;
    }
    this.down = false;
    if (!this.flapping) this.recovered(details, now);
    else this.pendingDetails = details;
  }

  /** Stops the stability timer (the client closes). */
  close(): void {
    clearTimeout(this.stableTimer);
  }

  private again(details: Record<string, unknown>, now: number): void {
    this.attempts++;
    this.log.debug(details, "registry not reachable; retrying");
    if (now - this.lastSummary < this.summaryEveryMs) return;
    this.lastSummary = now;
    const seconds = Math.round((now - this.since) / 1000);
    this.log.warn(
      { ...details, attempts: this.attempts, downForMs: now - this.since, flapping: this.flapping },
      `registry still unreachable after ${this.attempts} attempts, ${seconds}s`,
    );
  }

  private recovered(details: Record<string, unknown>, now: number): void {
    this.log.warn({ ...details, attempts: this.attempts, downForMs: now - this.since }, "registry link up again");
  }

  private stable(): void {
    if (this.upAt === 0) return;
    if (this.flapping) this.recovered(this.pendingDetails, this.upAt);
    this.flapping = false;
    this.since = 0;
    this.options.onStable?.();
  }
}
