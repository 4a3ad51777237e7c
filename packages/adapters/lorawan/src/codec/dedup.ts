// One uplink reaches the network once per gateway that heard it. This window gathers the copies of the same
// PHYPayload for a short time (200 ms by default), then hands over the uplink once, with every gateway that heard
// it and the one best placed to answer. Pure: the caller passes the clock and runs the timer.
import type { RxPacket } from "./radio-packet.js";

/** One gateway's copy of an uplink: who heard it and how (the rxpk). */
export interface HeardCopy {
  gatewayEui: string;
  rx: Pick<RxPacket, "rssi" | "lsnr">;
}

/** An uplink whose window closed: its bytes, one copy per gateway (in arrival order) and the best of them. */
export interface DedupedUplink<T extends HeardCopy> {
  phyPayload: Buffer;
  copies: T[];
  /** The copy with the highest SNR, then the highest RSSI, then the earliest: the gateway to answer through. */
  best: T;
  /** When the first copy arrived (ms, the caller's clock). */
  firstHeardAt: number;
}

/** What became of a copy offered to the window. */
export type CopyOutcome =
  /** The first copy: a window opened; the uplink comes out of {@link UplinkDeduplicator.due} when it closes. */
  | "first"
  /** Another copy inside the open window: added to it. */
  | "duplicate"
  /** A copy after its window closed (within `rememberMs`): dropped, the uplink was handed over already. */
  | "late"
  /** Too many open windows (`maxOpen`): dropped, to bound memory under a flood. */
  | "overflow";

/** Options of {@link UplinkDeduplicator}. */
export interface DedupOptions {
  /** How long copies are gathered after the first, in ms (default 200). */
  windowMs?: number;
  /** How long a closed uplink is remembered so late copies are dropped, in ms (default 10,000: beyond RX2). */
  rememberMs?: number;
  /** Most uplinks gathering copies at once (default 100,000). */
  maxOpen?: number;
}

interface Open<T extends HeardCopy> {
  phyPayload: Buffer;
  firstHeardAt: number;
  byGateway: Map<string, T>;
}

/** Whether copy `a` is better placed to answer than `b`: higher SNR, then higher RSSI. */
export function betterCopy(a: HeardCopy, b: HeardCopy): boolean {
  const snrA = a.rx.lsnr ?? -Infinity;
  const snrB = b.rx.lsnr ?? -Infinity;
  return snrA !== snrB ? snrA > snrB : a.rx.rssi > b.rx.rssi;
}

/**
 * Deduplicates copies of uplinks heard by several gateways, keyed by the PHYPayload bytes. The same bytes inside
 * the window are one uplink; a gateway that forwards the same bytes twice keeps its better copy. Windows close in
 * arrival order, so {@link due} and {@link nextDeadline} cost only what they return.
 */
export class UplinkDeduplicator<T extends HeardCopy = HeardCopy> {
  readonly #windowMs: number;
  readonly #rememberMs: number;
  readonly #maxOpen: number;
  readonly #open = new Map<string, Open<T>>();
  readonly #closed = new Map<string, number>();

  constructor(options: DedupOptions = {}) {
    this.#windowMs = options.windowMs ?? 200;
    this.#rememberMs = options.rememberMs ?? 10_000;
    this.#maxOpen = options.maxOpen ?? 100_000;
  }

  /** Number of uplinks gathering copies now. */
  get openCount(): number {
    return this.#open.size;
  }

  /** Offers a copy heard at `nowMs` (ms, the caller's monotonic clock). */
  add(phyPayload: Uint8Array, copy: T, nowMs: number): CopyOutcome {
    this.#forget(nowMs);
    const key = Buffer.from(phyPayload.buffer, phyPayload.byteOffset, phyPayload.byteLength).toString("latin1");
    const open = this.#open.get(key);
    if (open) {
      const previous = open.byGateway.get(copy.gatewayEui);
      if (!previous || betterCopy(copy, previous)) open.byGateway.set(copy.gatewayEui, copy);
      return "duplicate";
    }
    if (this.#closed.has(key)) return "late";
    if (this.#open.size >= this.#maxOpen) return "overflow";
    this.#open.set(key, {
      phyPayload: Buffer.from(phyPayload),
      firstHeardAt: nowMs,
      byGateway: new Map([[copy.gatewayEui, copy]]),
    });
    return "first";
  }

  /** Closes every window that has run its time by `nowMs` and returns those uplinks, oldest first. */
  due(nowMs: number): DedupedUplink<T>[] {
    const out: DedupedUplink<T>[] = [];
    for (const [key, open] of this.#open) {
      if (open.firstHeardAt + this.#windowMs > nowMs) break;
      this.#open.delete(key);
      this.#closed.set(key, nowMs);
      const copies = [...open.byGateway.values()];
      const best = copies.reduce((b, c) => (betterCopy(c, b) ? c : b));
      out.push({ phyPayload: open.phyPayload, copies, best, firstHeardAt: open.firstHeardAt });
    }
    this.#forget(nowMs);
    return out;
  }

  /** When the oldest open window closes (ms), to set the caller's timer; undefined when none is open. */
  nextDeadline(): number | undefined {
    for (const open of this.#open.values()) return open.firstHeardAt + this.#windowMs;
    return undefined;
  }

  #forget(nowMs: number): void {
    for (const [key, closedAt] of this.#closed) {
      if (closedAt + this.#rememberMs > nowMs) break;
      this.#closed.delete(key);
    }
  }
}
