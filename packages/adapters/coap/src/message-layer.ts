import type { Logger } from "pino";
import { MAX_SZX } from "./blockwise/block-option.js";
import { ClientExchange, type ClientRequest, type ClientResponse } from "./client-exchange.js";
import { ClientObservations, type ClientObservation, type NotificationListener } from "./client-observations.js";
import { CoapError } from "./coap-error.js";
import { DuplicateCache } from "./duplicate-cache.js";
import { emptyMessage } from "./encode-message.js";
import { decode, type DecodedResponse } from "./messages.js";
import { Retransmitter } from "./retransmitter.js";
import { createServerExchange, messageKey } from "./server-exchange.js";

/** Where a datagram came from; answers go back there. */
export interface Peer {
  readonly address: string;
  readonly port: number;
}

/** How a device answered a confirmable message: ACK, RST, or nothing through every retransmission. */
export type Confirmation = "ack" | "reset" | "timeout";

/** A request's method, resource and sender: what log lines name a refused one by. */
export interface RequestHead {
  readonly peer: Peer;
  readonly method: string;
  readonly path: readonly string[];
  /** Uri-Query options `name=value` as a map (a repeated name: the last wins; options without `=` left out). */
  readonly query: ReadonlyMap<string, string>;
  /** Uri-Query options as sent, in order: repeated parameters and flags such as LwM2M 1.1's `Q` kept. */
  readonly queryList: readonly string[];
}

/** A whole request as a handler sees it. */
export interface CoapRequest extends RequestHead {
  readonly token: Buffer;
  readonly confirmable: boolean;
  /** The request's Message ID; undefined for a block-wise upload, which arrives in several messages. */
  readonly messageId: number | undefined;
  /** Observe option: 0 registers, 1 deregisters (RFC 7641 §2). */
  readonly observe: number | undefined;
  /** Content-Format of the payload (RFC 7252 §5.10.3), e.g. 40 link-format; undefined when absent. */
  readonly contentFormat: number | undefined;
  /** Accept (RFC 7252 §5.10.4): the Content-Format the client wants back; undefined when absent. */
  readonly accept: number | undefined;
  /** The whole body: a Block1 upload arrives reassembled, and never larger than maxBodyBytes. */
  readonly payload: Buffer;
  /**
   * Sends a confirmable notification (RFC 7641 §4.2) to this request's sender and token, after this request's own
   * answer; one larger than a block goes as its first block, and the client asks for the rest (RFC 7959 §3.4).
   * `contentFormat` is said in it when given (an LwM2M client's TLV or SenML); else a 2.xx payload says 42.
   */
  notify(sequence: number, code: string, payload: Uint8Array, contentFormat?: number): Promise<Confirmation>;
}

/** A handler's answer; the layer encodes it, in blocks when it is larger than one. */
export interface CoapReply {
  readonly code: string;
  readonly payload?: Uint8Array | string;
  readonly observe?: number;
  /** Content-Format of the payload; when absent, a 2.xx with a payload says 42 (octet-stream). */
  readonly contentFormat?: number;
  /** Location-Path (RFC 7252 §5.10.7): `/rd/x1` or its segments, e.g. for the 2.01 Created of an LwM2M Register. */
  readonly locationPath?: string | readonly string[];
  /** Max-Age, seconds (RFC 7252 §5.10.5). */
  readonly maxAge?: number;
  /**
   * ETag of an answer sent in blocks (RFC 7959 §2.4): the same for the same body, so a client that resumes a
   * download on a later request sees its blocks belong together; when absent, the layer gives each body a new one.
   */
  readonly etag?: Buffer;
}

/** The application on top of the message layer (the MQTT bridge; later LwM2M). */
export type CoapHandler = (request: CoapRequest) => Promise<CoapReply>;

/** Settings of the message layer; the defaults follow RFC 7252 §4.8. */
export interface MessageLayerOptions {
  readonly logger: Logger;
  /** Largest request body, bytes (IOT_MAX_MESSAGE_SIZE): larger ones are answered 4.13 with Size1 = this. */
  readonly maxBodyBytes: number;
  /**
   * Writes a datagram to any peer: how requests and observations the layer makes as a client go out (the transport's
   * socket). Without it, the layer only serves, and `request`/`observe` reject `invalid`.
   */
  readonly send?: (datagram: Buffer, peer: Peer) => void;
  /** ACK_TIMEOUT for confirmable notifications and requests, ms (default 2000; doubled per retransmission). */
  readonly ackTimeoutMs?: number;
  /** ACK_RANDOM_FACTOR (default 1.5): the first timeout is random in [ACK_TIMEOUT, ACK_TIMEOUT × factor). */
  readonly ackRandomFactor?: number;
  /** MAX_RETRANSMIT (default 4). */
  readonly maxRetransmit?: number;
  /** Most Block1 uploads reassembled at once (default 64); more are answered 5.03 with Max-Age. */
  readonly maxTransfers?: number;
  /** A block-wise transfer idle this long is dropped, ms (default 60 000): its buffered body or response is freed. */
  readonly transferTimeoutMs?: number;
  /** Largest block exponent used and taken: 6 is 1024 bytes (default), 4 is 256. */
  readonly maxSzx?: number;
  /** Log fields naming who sent a refused request (the device it claims to be). */
  readonly describe?: (request: RequestHead) => Record<string, unknown>;
  /**
   * Resources (by Uri-Path) whose answer is the same body at every request (a download): a request for a later
   * block (Block2 num > 0) of one whose earlier blocks the layer no longer holds — from another port, after a
   * minute's silence — goes to the handler again, and the block asked is cut from its answer (else 4.08).
   */
  readonly resumableBlock2?: (path: readonly string[]) => boolean;
  /**
   * How long a client request message may go without its response, from its first transmission, ACKed or not, ms
   * (default MAX_TRANSMIT_WAIT: 93 000 with the default timing): then it rejects `timeout`. Below the retransmission
   * span (ACK_TIMEOUT × (2^(MAX_RETRANSMIT+1) − 1)) it also cuts the retransmissions short.
   */
  readonly requestTimeoutMs?: number;
  /**
   * NSTART: outstanding client requests to one peer at once (default 1, RFC 7252 §4.7): a request counts until the
   * peer ACKs or answers it; more wait in order.
   */
  readonly nstart?: number;
  /** Client requests to one peer in flight or waiting (default 32); more reject `busy`. */
  readonly maxRequestsPerPeer?: number;
  /** Client requests in flight or waiting, in all (default 10 000); more reject `busy`. */
  readonly maxRequests?: number;
  /** Observations the layer holds as a client per peer (default 64) and in all (default 100 000). */
  readonly maxObservationsPerPeer?: number;
  readonly maxObservations?: number;
}

/** The message layer: fed datagrams by a transport it does not own. */
export interface MessageLayer {
  /** Handles one datagram from `peer`; `send` writes a datagram back to it. Never throws. */
  handle(datagram: Buffer, peer: Peer, send: (datagram: Buffer) => void): void;
  /**
   * Sends a request to `peer` as a client (through options.send) and answers its whole response; rejects with a
   * CoapError: `reset`, `timeout`, `busy`, `too-large`, `incomplete`, `invalid` or `closed`.
   */
  request(peer: Peer, request: ClientRequest): Promise<ClientResponse>;
  /** Observes a resource of `peer` (RFC 7641): `onNotification` gets every newer notification, whole. */
  observe(peer: Peer, request: ClientRequest, onNotification: NotificationListener): Promise<ClientObservation>;
  /** Frees every transfer, rejects client requests `closed`, forgets observations and stops every timer. */
  close(): void;
}

/** How long a received message is remembered for its duplicates, ms (RFC 7252 EXCHANGE_LIFETIME is 247 s). */
export const EXCHANGE_MS = 247_000;
/** Most remembered messages (oldest go first). */
export const MAX_EXCHANGES = 50_000;

/**
 * The CoAP message layer (RFC 7252, RFC 7641, RFC 7959) over one transport, in both roles: requests from peers go
 * to the handler (server-exchange.ts); requests the application sends to peers, their responses and notifications
 * are matched here (client-exchange.ts, client-observations.ts). Duplicates are answered as the first time (§4.5),
 * a CoAP ping gets its RST, a response nobody waits for is rejected with RST, and anything malformed is dropped.
 */
export function createMessageLayer(handler: CoapHandler, options: MessageLayerOptions): MessageLayer {
  const log = options.logger;
  const ackTimeoutMs = options.ackTimeoutMs ?? 2_000;
  const ackRandomFactor = options.ackRandomFactor ?? 1.5;
  const maxRetransmit = options.maxRetransmit ?? 4;
  const transferTimeoutMs = options.transferTimeoutMs ?? 60_000;
  const maxSzx = Math.min(options.maxSzx ?? MAX_SZX, MAX_SZX);
  let nextMessageId = Math.floor(Math.random() * 0xffff);
  const messageId = () => (nextMessageId = (nextMessageId + 1) & 0xffff);
  const retransmitter = new Retransmitter({ ackTimeoutMs, ackRandomFactor, maxRetransmit });
  const duplicates = new DuplicateCache(EXCHANGE_MS, MAX_EXCHANGES);
  const server = createServerExchange(handler, {
    logger: log,
    maxBodyBytes: options.maxBodyBytes,
    maxTransfers: options.maxTransfers ?? 64,
    transferTimeoutMs,
    maxSzx,
    describe: options.describe,
    resumableBlock2: options.resumableBlock2,
    messageId,
    retransmitter,
    duplicates,
  });
  const transport = options.send;
  const send =
    transport &&
    ((datagram: Buffer, peer: Peer) => {
      try {
        transport(datagram, peer);
      } catch (err) {
        log.warn({ err, peer: peer.address }, "datagram not sent");
      }
    });
  const client: ClientExchange = new ClientExchange({
    send,
    messageId,
    retransmitter,
    maxBodyBytes: options.maxBodyBytes,
    maxSzx,
    requestTimeoutMs: options.requestTimeoutMs ?? ackTimeoutMs * (2 ** (maxRetransmit + 1) - 1) * ackRandomFactor,
    nstart: options.nstart ?? 1,
    maxRequestsPerPeer: options.maxRequestsPerPeer ?? 32,
    maxRequests: options.maxRequests ?? 10_000,
    tokenTaken: (token) => observations.has(token),
  });
  const observations = new ClientObservations(client, {
    maxPerPeer: options.maxObservationsPerPeer ?? 64,
    maxTotal: options.maxObservations ?? 100_000,
    logger: log,
  });
  let closed = false;
  const refuseClosed = () => Promise.reject(new CoapError("closed", "the CoAP message layer is closed"));
  const sweeper = setInterval(() => server.sweep(Date.now()), Math.min(transferTimeoutMs, 10_000));
  sweeper.unref();

  /** A separate response (CON or NON): to its request, else its observation, else RST (RFC 7252 §4.2, §4.3). */
  const takeResponse = (m: DecodedResponse, peer: Peer, reply: (d: Buffer) => void) => {
    const { packet } = m;
    const key = messageKey(peer, packet.messageId);
    const seen = duplicates.get(key, Date.now());
    if (seen) {
      if (seen.reply && packet.confirmable) reply(seen.reply); // a retransmission: ACKed again, taken once
      return;
    }
    const deliver = client.take(m, peer) ? () => {} : observations.take(m, peer);
    const answer = !deliver
      ? emptyMessage("reset", packet.messageId)
      : packet.confirmable
        ? emptyMessage("ack", packet.messageId)
        : undefined;
    duplicates.remember(key, answer, Date.now());
    if (answer) reply(answer);
    if (!deliver) log.debug({ peer: peer.address, code: packet.code }, "response for no request or observation: RST");
    deliver?.();
  };

  return {
    handle(datagram, peer, reply) {
      try {
        const m = decode(datagram);
        switch (m.kind) {
          case "malformed":
            log.debug({ peer: peer.address, reason: m.reason }, "malformed datagram");
            if (m.reply) reply(m.reply);
            return;
          case "ack":
            retransmitter.settle(messageKey(peer, m.messageId), { kind: "ack" });
            return;
          case "reset": {
            const key = messageKey(peer, m.messageId);
            if (!retransmitter.settle(key, { kind: "reset" })) client.reset(key);
            return;
          }
          case "ping":
            return reply(m.reply);
          case "request":
            return server.handle(m, peer, reply);
          case "response":
            if (m.packet.ack) retransmitter.settle(messageKey(peer, m.packet.messageId), { kind: "ack", response: m });
            else takeResponse(m, peer, reply);
        }
      } catch (err) {
        log.error({ err, peer: peer.address }, "datagram not handled");
      }
    },
    request: (peer, request) => (closed ? refuseClosed() : client.request(peer, request)),
    observe: (peer, request, onNotification) =>
      closed ? refuseClosed() : observations.observe(peer, request, onNotification),
    close() {
      closed = true;
      clearInterval(sweeper);
      server.clear();
      client.close();
      observations.clear();
      retransmitter.clear();
    },
  };
}
