import type { Logger } from "pino";
import { CoapError } from "./coap-error.js";
import {
  peerKey,
  responseOf,
  type ClientExchange,
  type ClientRequest,
  type ClientResponse,
} from "./client-exchange.js";
import type { Peer } from "./message-layer.js";
import type { DecodedResponse } from "./messages.js";
import { isNewerNotification } from "./observe-sequence.js";

/** Called with each notification, whole (Block2 reassembled), newest only; its errors are logged, not thrown. */
export type NotificationListener = (notification: ClientResponse) => void | Promise<void>;

/** An observation the layer made as a client (RFC 7641 §3). */
export interface ClientObservation {
  /** The registration's response: the current state, with Observe when the peer took the registration. */
  readonly response: ClientResponse;
  /**
   * True while notifications are delivered: the peer took the registration (2.xx with Observe) and neither a
   * final notification (not 2.xx, or without Observe), cancel nor forget ended it.
   */
  readonly active: boolean;
  /** Where the notifications come from now: the address of the latest one (a device behind NAT may move). */
  readonly peer: Peer;
  readonly token: Buffer;
  /** Ends it now and deregisters with a GET with Observe 1 and the same token (RFC 7641 §3.6); answers its response. */
  cancel(): Promise<ClientResponse>;
  /** Ends it now without telling the peer: its next notification is answered RST (RFC 7641 §3.6). */
  forget(): void;
}

/** Bounds of observations (each holds its request and a few numbers). */
export interface ClientObservationsOptions {
  readonly maxPerPeer: number;
  readonly maxTotal: number;
  readonly logger: Logger;
}

interface Entry {
  readonly key: string;
  readonly token: Buffer;
  readonly request: ClientRequest;
  readonly listener: NotificationListener;
  peer: Peer;
  /** The newest notification taken: its number and when, ms. */
  last: { readonly sequence: number; readonly at: number } | undefined;
}

/**
 * The observer role (RFC 7641 §3): registers with Observe 0, matches notifications by token alone (so a peer
 * whose address changed is still heard), drops those older than the newest taken (§3.4), fetches the rest of a
 * notification larger than a block, and ends on a final notification, cancel or forget. A notification whose
 * token no observation has is for the layer to RST.
 */
export class ClientObservations {
  private readonly byToken = new Map<string, Entry>();
  private readonly perPeer = new Map<string, number>();

  constructor(
    private readonly client: ClientExchange,
    private readonly options: ClientObservationsOptions,
  ) {}

  /** Observations held. */
  get size(): number {
    return this.byToken.size;
  }

  /** Whether an observation holds the token (hex). */
  has(token: string): boolean {
    return this.byToken.has(token);
  }

  /** Registers an observation of `request` at `peer`; rejects as `request` does, or `busy` past the bounds. */
  async observe(peer: Peer, request: ClientRequest, listener: NotificationListener): Promise<ClientObservation> {
    const { maxPerPeer, maxTotal } = this.options;
    if (this.byToken.size >= maxTotal) throw new CoapError("busy", `${maxTotal} observations already`);
    if ((this.perPeer.get(peerKey(peer)) ?? 0) >= maxPerPeer)
      throw new CoapError("busy", `${maxPerPeer} observations of ${peerKey(peer)} already`);
    const token = this.client.newToken();
    const base: ClientRequest = { ...request, observe: undefined };
    const entry: Entry = { key: token.toString("hex"), token, request: base, listener, peer, last: undefined };
    this.add(entry);
    let response: ClientResponse;
    try {
      response = await this.client.request(peer, { ...base, observe: 0 }, token);
    } catch (err) {
      this.remove(entry);
      throw err;
    }
    if (!response.code.startsWith("2.") || response.observe === undefined) this.remove(entry);
    else entry.last ??= { sequence: response.observe, at: Date.now() };
    const held = () => this.byToken.get(entry.key) === entry;
    return {
      response,
      token,
      get active() {
        return held();
      },
      get peer() {
        return entry.peer;
      },
      cancel: () => {
        this.remove(entry);
        return this.client.request(entry.peer, { ...base, observe: 1 }, token);
      },
      forget: () => this.remove(entry),
    };
  }

  /**
   * A separate response whose token may be an observation's, from `peer`: undefined when no observation has it,
   * else what delivers it, to run once the layer has ACKed it (a stale one delivers nothing).
   */
  take(m: DecodedResponse, peer: Peer): (() => void) | undefined {
    const entry = this.byToken.get(m.packet.token.toString("hex"));
    if (!entry) return undefined;
    if (peerKey(entry.peer) !== peerKey(peer)) this.move(entry, peer);
    const now = Date.now();
    const { last } = entry;
    if (m.observe !== undefined && last && !isNewerNotification(last.sequence, last.at, m.observe, now)) {
      return () => {};
    }
    if (m.observe !== undefined) entry.last = { sequence: m.observe, at: now };
    const final = !m.packet.code.startsWith("2.") || m.observe === undefined;
    if (final) this.remove(entry); // the peer no longer observes (RFC 7641 §3.2)
    const taken = entry.last;
    return () => this.deliver(entry, m, peer, taken, final);
  }

  /** Ends every observation without telling the peers. */
  clear(): void {
    this.byToken.clear();
    this.perPeer.clear();
  }

  /** Hands a notification to the listener: at once when it is one block, else once its other blocks are fetched. */
  private deliver(entry: Entry, m: DecodedResponse, peer: Peer, taken: Entry["last"], final: boolean): void {
    const { block2 } = m;
    if (!block2 || (block2.num === 0 && !block2.more)) return this.call(entry, responseOf(m, m.packet.payload, peer));
    this.client.complete(peer, m, entry.request).then(
      (notification) => {
        // Skipped when ended meanwhile, or when a newer notification came while its blocks were fetched.
        if (final || (this.byToken.get(entry.key) === entry && entry.last === taken)) this.call(entry, notification);
      },
      (err: unknown) => this.dropped(entry, peer, err),
    );
  }

  private call(entry: Entry, notification: ClientResponse): void {
    try {
      entry.listener(notification)?.catch((err: unknown) => this.dropped(entry, notification.peer, err));
    } catch (err) {
      this.dropped(entry, notification.peer, err);
    }
  }

  private dropped(entry: Entry, peer: Peer, err: unknown): void {
    this.options.logger.warn({ err, peer: peer.address, token: entry.key }, "notification not delivered");
  }

  private add(entry: Entry): void {
    this.byToken.set(entry.key, entry);
    const key = peerKey(entry.peer);
    this.perPeer.set(key, (this.perPeer.get(key) ?? 0) + 1);
  }

  private remove(entry: Entry): void {
    if (this.byToken.get(entry.key) !== entry) return;
    this.byToken.delete(entry.key);
    const key = peerKey(entry.peer);
    const count = (this.perPeer.get(key) ?? 1) - 1;
    if (count > 0) this.perPeer.set(key, count);
    else this.perPeer.delete(key);
  }

  /** The peer's address changed (NAT rebinding): the observation counts for its new address now. */
  private move(entry: Entry, peer: Peer): void {
    this.remove(entry);
    entry.peer = { address: peer.address, port: peer.port };
    this.add(entry);
  }
}
