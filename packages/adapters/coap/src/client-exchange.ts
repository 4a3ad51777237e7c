import { randomBytes } from "node:crypto";
import { blockSize } from "./blockwise/block-option.js";
import { fetchBlocks, uploadBlocks, type Exchange, type ExchangeFields } from "./blockwise/client-blocks.js";
import { CoapError } from "./coap-error.js";
import { requestMessage } from "./encode-message.js";
import type { Peer } from "./message-layer.js";
import type { DecodedResponse } from "./messages.js";
import type { Retransmitter } from "./retransmitter.js";
import { RequestSlots, type RequestTicket } from "./request-slots.js";
import { messageKey } from "./server-exchange.js";

/** A request the layer sends as a client, to a peer (for LwM2M: the server's Read, Write, Observe to a device). */
export interface ClientRequest {
  readonly method: "GET" | "POST" | "PUT" | "DELETE" | "FETCH" | "PATCH" | "iPATCH";
  /** Uri-Path: `/3/0/0` or its segments `["3", "0", "0"]`; each segment at most 255 bytes. */
  readonly path: string | readonly string[];
  /** Uri-Query options, each as sent (`lt=60`, `Q`); each at most 255 bytes. */
  readonly query?: readonly string[];
  /** A body larger than one block (2^(maxSzx+4) bytes) is sent block by block with Block1 (RFC 7959 §2.5). */
  readonly payload?: Uint8Array | string;
  readonly contentFormat?: number;
  readonly accept?: number;
  /** Observe: 0 registers, 1 deregisters (RFC 7641 §3.1, §3.6); `observe()` keeps the notifications of a 0. */
  readonly observe?: number;
  /** CON (default, retransmitted until ACK) or NON. */
  readonly confirmable?: boolean;
}

/** A peer's whole response: a Block2 response arrives reassembled. */
export interface ClientResponse {
  readonly code: string;
  readonly payload: Buffer;
  readonly contentFormat: number | undefined;
  /** Observe of the response: present when the peer registered an observation, or in a notification. */
  readonly observe: number | undefined;
  /** Location-Path segments, e.g. the instance a Create made. */
  readonly locationPath: readonly string[];
  /** Max-Age, seconds; undefined when absent (60). */
  readonly maxAge: number | undefined;
  /** Where it came from. */
  readonly peer: Peer;
}

/** What the client side shares with the rest of the layer. */
export interface ClientExchangeOptions {
  /** Writes a datagram to a peer; undefined: the layer has no transport of its own and refuses requests. */
  readonly send: ((datagram: Buffer, peer: Peer) => void) | undefined;
  readonly messageId: () => number;
  readonly retransmitter: Retransmitter;
  /** Largest response body reassembled from blocks, bytes. */
  readonly maxBodyBytes: number;
  /** Largest block exponent: of Block1 uploads, and the Block2 size asked for from the start when below 6. */
  readonly maxSzx: number;
  /**
   * How long one request message may go unanswered, from its first transmission, ms: without its response by then
   * (ACKed or not) it rejects `timeout` and its retransmissions stop.
   */
  readonly requestTimeoutMs: number;
  readonly nstart: number;
  readonly maxRequestsPerPeer: number;
  readonly maxRequests: number;
  /** Whether a token is taken by an observation (a new request's token must differ). */
  readonly tokenTaken: (token: string) => boolean;
}

interface Pending {
  readonly peer: Peer;
  /** A deregistration (Observe 1): a late notification of that observation is not its response. */
  readonly deregistering: boolean;
  readonly settle: (result: DecodedResponse | CoapError) => void;
}

const METHOD_CODES: Record<string, string> = {
  GET: "0.01",
  POST: "0.02",
  PUT: "0.03",
  DELETE: "0.04",
  FETCH: "0.05",
  PATCH: "0.06",
  iPATCH: "0.07",
};

/** A response as the client side answers it, with its whole payload. */
export function responseOf(first: DecodedResponse, payload: Buffer, peer: Peer): ClientResponse {
  const { contentFormat, observe, locationPath, maxAge } = first;
  return { code: first.packet.code, payload, contentFormat, observe, locationPath, maxAge, peer };
}

/** The key by which requests to one peer are counted. */
export const peerKey = (peer: Peer): string => `${peer.address}:${peer.port}`;
const samePeer = (a: Peer, b: Peer) => a.address === b.address && a.port === b.port;

/**
 * The client role of the message layer (RFC 7252 §5.2-5.3, RFC 7959 §2.4): sends requests with a fresh random token
 * and message id, retransmits CON ones, takes piggybacked and separate responses by token (from the peer asked),
 * fetches the later blocks of a Block2 response and answers it whole. RST and timeout reject distinctly.
 */
export class ClientExchange {
  private readonly pending = new Map<string, Pending>();
  /** NON requests waiting for their response, by peer and message id: an RST rejects them (RFC 7252 §4.3). */
  private readonly nonConfirmable = new Map<string, (result: CoapError) => void>();
  private readonly slots: RequestSlots;

  constructor(private readonly options: ClientExchangeOptions) {
    this.slots = new RequestSlots({
      nstart: options.nstart,
      maxPerPeer: options.maxRequestsPerPeer,
      maxTotal: options.maxRequests,
    });
  }

  /** Requests waiting for their response. */
  get size(): number {
    return this.pending.size;
  }

  /** A token no pending request nor observation has: 8 random bytes (RFC 7252 §5.3.1). */
  newToken(): Buffer {
    for (;;) {
      const token = randomBytes(8);
      const key = token.toString("hex");
      if (!this.pending.has(key) && !this.options.tokenTaken(key)) return token;
    }
  }

  /**
   * Sends `request` to `peer` once a slot is free and answers the whole response; `token` is the caller's (an
   * observation's), else a new one.
   */
  async request(peer: Peer, request: ClientRequest, token?: Buffer): Promise<ClientResponse> {
    const fields = this.fieldsOf(request);
    const ticket = this.slots.open(peerKey(peer));
    try {
      const exchange: Exchange = (f, t) => this.exchange(peer, ticket, f, t);
      const first =
        fields.payload.length > blockSize(this.options.maxSzx)
          ? await uploadBlocks(exchange, fields, this.options.maxSzx, token ?? this.newToken())
          : await exchange(fields, token ?? this.newToken());
      return await this.whole(peer, first, request, exchange);
    } finally {
      ticket.close();
    }
  }

  /**
   * A notification (or other response) taken whole: when it is the first of blocks, the rest are fetched by
   * repeating `request` without Observe, as a request of its own to the peer (RFC 7959 §3.4).
   */
  async complete(peer: Peer, first: DecodedResponse, request: ClientRequest): Promise<ClientResponse> {
    let ticket: RequestTicket | undefined;
    try {
      return await this.whole(peer, first, request, (f) =>
        this.exchange(peer, (ticket ??= this.slots.open(peerKey(peer))), f),
      );
    } finally {
      ticket?.close();
    }
  }

  /** Fetches the blocks after `first` (a response or notification) by repeating `request` without Observe. */
  private async whole(
    peer: Peer,
    first: DecodedResponse,
    request: ClientRequest,
    exchange: Exchange,
  ): Promise<ClientResponse> {
    const asked = this.fieldsOf(request);
    // After a Block1 upload, the later blocks of its response are asked for without the body (RFC 7959 §3.2).
    const payload = asked.payload.length > blockSize(this.options.maxSzx) ? Buffer.alloc(0) : asked.payload;
    const fields = { ...asked, payload, observe: undefined };
    const body = await fetchBlocks(exchange, first, fields, this.options.maxBodyBytes);
    return responseOf(first, body, peer);
  }

  /**
   * A separate response (CON or NON) from `peer`: settles the request with its token. Answers whether it was one of
   * this side's (the layer then ACKs a CON one); false for a token it does not know or from another peer.
   */
  take(m: DecodedResponse, peer: Peer): boolean {
    const p = this.pending.get(m.packet.token.toString("hex"));
    if (!p || !samePeer(p.peer, peer)) return false;
    // While deregistering, a notification of the old observation may still come: ACK it, but it is no answer.
    if (!(p.deregistering && m.observe !== undefined)) p.settle(m);
    return true;
  }

  /** An RST of message `key` (peer and message id): rejects the NON request it answers; false when none. */
  reset(key: string): boolean {
    const settle = this.nonConfirmable.get(key);
    settle?.(new CoapError("reset", "the peer answered the request with RST"));
    return settle !== undefined;
  }

  /** Refuses every pending and waiting request with `closed`. */
  close(): void {
    const err = new CoapError("closed", "the CoAP message layer closed");
    this.slots.clear(err);
    for (const p of [...this.pending.values()]) p.settle(err);
  }

  /**
   * One request message and its response, sent once the ticket has an NSTART place to the peer: retransmitted while
   * CON and unacknowledged, and given up `requestTimeoutMs` after its first transmission. The place is given back at
   * the peer's empty ACK (RFC 7252 §4.7: the interaction is no longer outstanding), else when the exchange ends: a
   * separate response that never comes holds up no other request.
   */
  private async exchange(
    peer: Peer,
    ticket: RequestTicket,
    fields: ExchangeFields,
    token = this.newToken(),
  ): Promise<DecodedResponse> {
    const release = await ticket.place();
    try {
      return await this.transmit(peer, fields, token, release);
    } finally {
      release();
    }
  }

  private transmit(peer: Peer, fields: ExchangeFields, token: Buffer, release: () => void) {
    return new Promise<DecodedResponse>((resolve, reject) => {
      const { send, retransmitter, requestTimeoutMs } = this.options;
      const messageId = this.options.messageId();
      let datagram: Buffer;
      try {
        datagram = requestMessage({ ...fields, messageId, token });
      } catch (err) {
        return reject(new CoapError("too-large", "the request does not fit one datagram", { cause: err }));
      }
      if (!send) return reject(new CoapError("invalid", "the message layer was made without a transport (send)"));
      const tokenKey = token.toString("hex");
      const key = messageKey(peer, messageId);
      let acknowledged = false;
      const settle = (result: DecodedResponse | CoapError) => {
        clearTimeout(deadline);
        retransmitter.stop(key);
        this.nonConfirmable.delete(key);
        if (this.pending.get(tokenKey)?.settle === settle) this.pending.delete(tokenKey);
        if (result instanceof CoapError) reject(result);
        else resolve(result);
      };
      const deadline = setTimeout(() => {
        const what = acknowledged
          ? "the peer acknowledged the request but sent no response"
          : "no answer from the peer";
        settle(new CoapError("timeout", `${what} within ${requestTimeoutMs} ms`));
      }, requestTimeoutMs);
      deadline.unref();
      this.pending.set(tokenKey, { peer, deregistering: fields.observe === 1, settle });
      const transmit = (d: Buffer) => send(d, peer);
      if (!fields.confirmable) {
        this.nonConfirmable.set(key, settle);
        return transmit(datagram);
      }
      retransmitter.start(key, datagram, transmit, (s) => {
        if (s.kind === "reset") settle(new CoapError("reset", "the peer answered the request with RST"));
        else if (s.kind === "timeout") settle(new CoapError("timeout", "the peer did not acknowledge the request"));
        else if (s.response?.packet.token.equals(token)) settle(s.response);
        else {
          // An empty ACK: the response comes separately (RFC 7252 §5.2.2) and the next request may go meanwhile.
          acknowledged = true;
          release();
        }
      });
    });
  }

  /** Checks a request and turns it into message fields; throws `invalid` or `too-large`. */
  private fieldsOf(r: ClientRequest): ExchangeFields {
    const code = METHOD_CODES[r.method];
    if (!code) throw new CoapError("invalid", `unknown method ${String(r.method)}`);
    const path = typeof r.path === "string" ? r.path.split("/").filter(Boolean) : [...r.path];
    const query = r.query ?? [];
    const long = [...path, ...query].find((s) => Buffer.byteLength(s) > 255);
    if (long !== undefined)
      throw new CoapError("invalid", `Uri-Path or Uri-Query "${long.slice(0, 40)}…" over 255 bytes`);
    // A Buffer body is sent as it is (a firmware package pushed to many devices is held once): not changed after.
    const p = r.payload ?? "";
    const payload = typeof p === "string" ? Buffer.from(p) : Buffer.isBuffer(p) ? p : Buffer.from(p);
    const limit = 2 ** 20 * blockSize(this.options.maxSzx);
    if (payload.length > limit)
      throw new CoapError("too-large", `a request body of ${payload.length} bytes is more than 2^20 blocks`);
    const block2 = this.options.maxSzx < 6 ? { num: 0, more: false, szx: this.options.maxSzx } : undefined;
    return {
      code,
      confirmable: r.confirmable ?? true,
      path,
      query,
      payload,
      contentFormat: r.contentFormat,
      accept: r.accept,
      observe: r.observe,
      block2,
    };
  }
}
