import { CoapError } from "./coap-error.js";

/** Bounds on client requests (RFC 7252 §4.7 congestion control, and memory). */
export interface RequestSlotsOptions {
  /** NSTART: requests in flight to one peer at once (RFC default 1); more wait their turn, first come first served. */
  readonly nstart: number;
  /** Requests to one peer in flight or waiting; one more is refused `busy`. */
  readonly maxPerPeer: number;
  /** Requests to all peers in flight or waiting; one more is refused `busy`. */
  readonly maxTotal: number;
}

interface PeerSlots {
  active: number;
  readonly waiting: { grant: () => void; fail: (err: CoapError) => void }[];
}

/**
 * Who may send a request now: at most NSTART in flight to each peer, the rest queued in order, with the queue
 * bounded per peer and in total so that a silent device or a burst cannot grow memory without end.
 */
export class RequestSlots {
  private readonly peers = new Map<string, PeerSlots>();
  private total = 0;

  constructor(private readonly options: RequestSlotsOptions) {}

  /** Requests in flight or waiting, to all peers. */
  get size(): number {
    return this.total;
  }

  /** Resolves with the function that frees the slot once a request to `peer` may go; rejects `busy` past the bounds. */
  acquire(peer: string): Promise<() => void> {
    const { nstart, maxPerPeer, maxTotal } = this.options;
    let slots = this.peers.get(peer);
    const held = slots ? slots.active + slots.waiting.length : 0;
    if (held >= maxPerPeer) return Promise.reject(new CoapError("busy", `${held} requests to ${peer} already`));
    if (this.total >= maxTotal) return Promise.reject(new CoapError("busy", `${this.total} requests in all already`));
    if (!slots) this.peers.set(peer, (slots = { active: 0, waiting: [] }));
    this.total++;
    const s = slots;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.total--;
      const next = s.waiting.shift();
      if (next) return next.grant();
      s.active--;
      if (s.active === 0) this.peers.delete(peer);
    };
    if (s.active < nstart) {
      s.active++;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => s.waiting.push({ grant: () => resolve(release), fail: reject }));
  }

  /** Refuses every waiting request with `err`; requests in flight keep their slots until they release them. */
  clear(err: CoapError): void {
    for (const slots of this.peers.values()) {
      for (const w of slots.waiting.splice(0)) {
        this.total--;
        w.fail(err);
      }
    }
  }
}
