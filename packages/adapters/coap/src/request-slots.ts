import { CoapError } from "./coap-error.js";

/** Bounds on client requests (RFC 7252 §4.7 congestion control, and memory). */
export interface RequestSlotsOptions {
  /**
   * NSTART: outstanding interactions with one peer at once (RFC default 1), i.e. request messages it has neither
   * acknowledged nor answered yet; more wait their turn, first come first served.
   */
  readonly nstart: number;
  /** Requests to one peer open (waiting, outstanding or acknowledged and awaiting a response); one more is `busy`. */
  readonly maxPerPeer: number;
  /** Requests to all peers open; one more is refused `busy`. */
  readonly maxTotal: number;
}

/** One open request: counted against the bounds until closed; its messages take an NSTART place one at a time. */
export interface RequestTicket {
  /**
   * Resolves once a message of the request may go on the wire (an NSTART place to the peer is free), with the
   * function that gives the place back (at the peer's ACK or answer; calling it again does nothing). Rejects with the
   * error of {@link RequestSlots.clear}.
   */
  place(): Promise<() => void>;
  /** The request is over: it no longer counts against the bounds (calling it again does nothing). */
  close(): void;
}

interface PeerSlots {
  requests: number;
  active: number;
  readonly waiting: { grant: () => void; fail: (err: CoapError) => void }[];
}

/**
 * Who may send a request message now: at most NSTART outstanding to each peer (RFC 7252 §4.7: a CON not yet ACKed,
 * or a request neither acknowledged nor answered), the rest queued in order. A request the peer has ACKed and will
 * answer separately no longer holds a place, so one the peer never answers does not hold up the next. Open requests
 * are bounded per peer and in total so that a silent device or a burst cannot grow memory without end.
 */
export class RequestSlots {
  private readonly peers = new Map<string, PeerSlots>();
  private total = 0;

  constructor(private readonly options: RequestSlotsOptions) {}

  /** Requests open, to all peers. */
  get size(): number {
    return this.total;
  }

  /** Opens a request to `peer`; throws `busy` past the bounds. */
  open(peer: string): RequestTicket {
    const { maxPerPeer, maxTotal } = this.options;
    let slots = this.peers.get(peer);
    const held = slots?.requests ?? 0;
    if (held >= maxPerPeer) throw new CoapError("busy", `${held} requests to ${peer} already`);
    if (this.total >= maxTotal) throw new CoapError("busy", `${this.total} requests in all already`);
    if (!slots) this.peers.set(peer, (slots = { requests: 0, active: 0, waiting: [] }));
    const s = slots;
    s.requests++;
    this.total++;
    let closed = false;
    return {
      place: () => this.place(peer, s),
      close: () => {
        if (closed) return;
        closed = true;
        s.requests--;
        this.total--;
        this.forget(peer, s);
      },
    };
  }

  /** Refuses every message waiting for a place with `err`; places taken stay until given back. */
  clear(err: CoapError): void {
    for (const slots of this.peers.values()) for (const w of slots.waiting.splice(0)) w.fail(err);
  }

  private place(peer: string, s: PeerSlots): Promise<() => void> {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = s.waiting.shift();
      if (next) return next.grant();
      s.active--;
      this.forget(peer, s);
    };
    if (s.active < this.options.nstart) {
      s.active++;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => s.waiting.push({ grant: () => resolve(release), fail: reject }));
  }

  private forget(peer: string, s: PeerSlots): void {
    if (s.requests === 0 && s.active === 0 && s.waiting.length === 0 && this.peers.get(peer) === s)
      this.peers.delete(peer);
  }
}
