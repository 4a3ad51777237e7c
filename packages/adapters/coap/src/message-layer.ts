import type { Logger } from "pino";
import { blockSize, fitBlock, MAX_SZX, sliceBlock, type BlockOption } from "./blockwise/block-option.js";
import { Block1Assembler } from "./blockwise/block1-assembler.js";
import { RepresentationCache } from "./blockwise/representation-cache.js";
import { CODES, decode, notification, response, type AnswerOptions, type DecodedRequest } from "./messages.js";

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
  readonly query: ReadonlyMap<string, string>;
}

/** A whole request as a handler sees it. */
export interface CoapRequest extends RequestHead {
  readonly token: Buffer;
  readonly confirmable: boolean;
  /** Observe option: 0 registers, 1 deregisters (RFC 7641 §2). */
  readonly observe: number | undefined;
  /** The whole body: a Block1 upload arrives reassembled, and never larger than maxBodyBytes. */
  readonly payload: Buffer;
  /**
   * Sends a confirmable notification (RFC 7641 §4.2) to this request's sender and token, after this request's own
   * answer; one larger than a block goes as its first block, and the client asks for the rest (RFC 7959 §3.4).
   */
  notify(sequence: number, code: string, payload: Uint8Array): Promise<Confirmation>;
}

/** A handler's answer; the layer encodes it, in blocks when it is larger than one. */
export interface CoapReply {
  readonly code: string;
  readonly payload?: Uint8Array | string;
  readonly observe?: number;
}

/** The application on top of the message layer (the MQTT bridge; later LwM2M). */
export type CoapHandler = (request: CoapRequest) => Promise<CoapReply>;

/** Settings of the message layer; the defaults follow RFC 7252 §4.8. */
export interface MessageLayerOptions {
  readonly logger: Logger;
  /** Largest request body, bytes (IOT_MAX_MESSAGE_SIZE): larger ones are answered 4.13 with Size1 = this. */
  readonly maxBodyBytes: number;
  /** ACK_TIMEOUT for confirmable notifications, ms (default 2000; doubled per retransmission). */
  readonly ackTimeoutMs?: number;
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
}

/** The message layer: fed datagrams by a transport it does not own. */
export interface MessageLayer {
  /** Handles one datagram from `peer`; `send` writes a datagram back to it. Never throws. */
  handle(datagram: Buffer, peer: Peer, send: (datagram: Buffer) => void): void;
  /** Frees every transfer in progress and stops the timer that drops abandoned ones. */
  close(): void;
}

/**
 * How long an answered confirmable request is remembered for retransmissions, ms (RFC 7252 EXCHANGE_LIFETIME is
 * 247 s).
 */
const EXCHANGE_MS = 247_000;
/** Most remembered exchanges (oldest go first). */
const MAX_EXCHANGES = 50_000;
/** Most responses and notifications kept for their later blocks, and their total bytes. */
const MAX_REPRESENTATIONS = 1_000;
const MAX_REPRESENTATION_BYTES = 32 * 1024 * 1024;

/**
 * The CoAP message layer (RFC 7252 §4, RFC 7959) under a handler: answers a retransmitted confirmable request with
 * the answer it already made, retransmits confirmable notifications until ACK or RST, reassembles Block1 uploads
 * (2.31 Continue, 4.08 for a missing or out-of-order block, 4.13 with Size1 past maxBodyBytes) and serves answers
 * and notifications larger than a block with Block2, later blocks from the same representation.
 */
export function createMessageLayer(handler: CoapHandler, options: MessageLayerOptions): MessageLayer {
  const log = options.logger;
  const { maxBodyBytes } = options;
  const ackTimeoutMs = options.ackTimeoutMs ?? 2_000;
  const maxRetransmit = options.maxRetransmit ?? 4;
  const transferTimeoutMs = options.transferTimeoutMs ?? 60_000;
  const maxSzx = Math.min(options.maxSzx ?? MAX_SZX, MAX_SZX);
  const uploads = new Block1Assembler({
    maxBodyBytes,
    maxTransfers: options.maxTransfers ?? 64,
    idleTimeoutMs: transferTimeoutMs,
    maxSzx,
  });
  const representations = new RepresentationCache({
    maxEntries: MAX_REPRESENTATIONS,
    maxBytes: MAX_REPRESENTATION_BYTES,
    ttlMs: transferTimeoutMs,
  });
  const sweeper = setInterval(
    () => {
      const dropped = uploads.sweep(Date.now());
      if (dropped > 0) log.debug({ dropped }, "abandoned block-wise uploads dropped");
      representations.sweep(Date.now());
    },
    Math.min(transferTimeoutMs, 10_000),
  );
  sweeper.unref();

  let nextMessageId = Math.floor(Math.random() * 0xffff);
  const messageId = () => (nextMessageId = (nextMessageId + 1) & 0xffff);
  let nextEtag = Math.floor(Math.random() * 0xffffffff);
  const etag = () => {
    nextEtag = (nextEtag + 1) >>> 0;
    const b = Buffer.alloc(4);
    b.writeUInt32BE(nextEtag);
    return b;
  };
  /** Confirmable requests already seen: their answer (or undefined while it is being made). */
  const exchanges = new Map<string, { at: number; reply: Buffer | undefined }>();
  /** Confirmable messages waiting for the device's ACK or RST, by message id. */
  const awaiting = new Map<number, (answer: "ack" | "reset") => void>();

  const remember = (key: string, reply: Buffer | undefined) => {
    const now = Date.now();
    for (const [k, e] of exchanges) {
      if (now - e.at < EXCHANGE_MS && exchanges.size < MAX_EXCHANGES) break;
      exchanges.delete(k);
    }
    exchanges.set(key, { at: now, reply });
  };

  /** Sends a confirmable message until it is ACKed or RST, retransmitting with exponential back-off. */
  const confirm = (id: number, datagram: Buffer, send: (d: Buffer) => void): Promise<Confirmation> =>
    new Promise((resolve) => {
      let attempt = 0;
      let timer: NodeJS.Timeout;
      const transmit = () => {
        send(datagram);
        if (attempt > maxRetransmit) {
          awaiting.delete(id);
          return resolve("timeout");
        }
        timer = setTimeout(transmit, ackTimeoutMs * 2 ** attempt++);
        timer.unref();
      };
      awaiting.set(id, (answer) => {
        clearTimeout(timer);
        awaiting.delete(id);
        resolve(answer);
      });
      transmit();
    });

  /**
   * A body too large for one block of 2^(szx+4) bytes: keeps it under `key` for the client's requests of the other
   * blocks and answers its first block with the options that say so; undefined when it fits.
   */
  const firstBlock = (key: string, code: string, payload: Uint8Array, szx: number) => {
    if (payload.length <= blockSize(szx)) return undefined;
    const representation = { code, payload: Buffer.from(payload), etag: etag() };
    representations.put(key, representation, Date.now());
    const first = sliceBlock(representation.payload, 0, szx)!;
    const extra = { block2: first.block, etag: representation.etag, size2: payload.length };
    return { payload: first.payload, extra };
  };

  const serve = async (
    m: DecodedRequest,
    peer: Peer,
    send: (d: Buffer) => void,
    replied: Promise<void>,
  ): Promise<Buffer> => {
    const { packet } = m;
    const answer = (code: string, payload: Uint8Array | string = "", extra: AnswerOptions = {}) =>
      response(packet, code, payload, { messageId: messageId(), ...extra });
    const head: RequestHead = { peer, method: m.method, path: m.path, query: m.query };
    const tooLarge = (size: number) => {
      log.warn(
        { peer: peer.address, ...options.describe?.(head), size, limit: maxBodyBytes },
        "request refused: body larger than IOT_MAX_MESSAGE_SIZE",
      );
      return answer(CODES.tooLarge, `the body is larger than ${maxBodyBytes} bytes`, { size1: maxBodyBytes });
    };
    /** A transfer is the sender's request on one resource; an upload also has its Request-Tag (RFC 9175 §3.2). */
    const transfer = `${peer.address}:${peer.port} ${m.method} ${m.resource}`;
    const now = Date.now();

    if (m.block2 && m.block2.num > 0) {
      const representation = representations.get(transfer, now);
      if (!representation) return answer(CODES.incomplete, "the earlier blocks of this answer are gone: ask block 0");
      const block = fitBlock(m.block2, maxSzx);
      const slice = sliceBlock(representation.payload, block.num, block.szx);
      if (!slice) return answer(CODES.badOption, `block ${m.block2.num} is past the end of the answer`);
      return answer(representation.code, slice.payload, { block2: slice.block, etag: representation.etag });
    }

    let body = packet.payload;
    let block1: BlockOption | undefined;
    if (m.block1) {
      const outcome = uploads.offer(`${transfer} ${m.requestTag}`, m.block1, packet.payload, m.size1, now);
      switch (outcome.kind) {
        case "continue":
          return answer(CODES.continue, "", { block1: outcome.block });
        case "incomplete":
          return answer(CODES.incomplete, outcome.reason);
        case "invalid":
          return answer(CODES.badRequest, outcome.reason);
        case "too-large":
          return tooLarge(outcome.size);
        case "busy":
          log.warn({ peer: peer.address, ...options.describe?.(head) }, "block-wise upload refused: too many at once");
          return answer(CODES.unavailable, "too many uploads at once; try again later", {
            maxAge: Math.max(1, Math.ceil(outcome.retryAfterMs / 1000)),
          });
        case "complete":
          body = outcome.body;
          block1 = outcome.block;
      }
    } else if (Math.max(packet.payload.length, m.size1 ?? 0) > maxBodyBytes) {
      return tooLarge(Math.max(packet.payload.length, m.size1 ?? 0));
    }

    const szx = Math.min(m.block2?.szx ?? maxSzx, maxSzx);
    const request: CoapRequest = {
      ...head,
      token: packet.token,
      confirmable: packet.confirmable,
      observe: m.observe,
      payload: body,
      notify: async (sequence, code, payload) => {
        await replied;
        const id = messageId();
        const first = firstBlock(transfer, code, payload, szx);
        const datagram = notification(packet.token, id, sequence, code, first?.payload ?? payload, first?.extra);
        return confirm(id, datagram, send);
      },
    };
    const reply = await handler(request);
    const payload = reply.payload ?? "";
    const first = firstBlock(transfer, reply.code, Buffer.from(payload), szx);
    return answer(reply.code, first?.payload ?? payload, { ...first?.extra, observe: reply.observe, block1 });
  };

  return {
    handle(datagram, peer, send) {
      const m = decode(datagram);
      if (m.kind === "malformed") {
        log.debug({ peer: peer.address, reason: m.reason }, "malformed datagram");
        if (m.reply) send(m.reply);
        return;
      }
      if (m.kind !== "request") {
        awaiting.get(m.messageId)?.(m.kind);
        return;
      }
      const { packet } = m;
      const exchange = `${peer.address}:${peer.port}:${packet.messageId}`;
      if (packet.confirmable) {
        const seen = exchanges.get(exchange);
        if (seen) {
          if (seen.reply) send(seen.reply); // a retransmission: same answer, not handled twice
          return;
        }
        remember(exchange, undefined);
      }
      let markReplied = () => {};
      const replied = new Promise<void>((resolve) => (markReplied = resolve));
      serve(m, peer, send, replied)
        .catch((err: unknown) => {
          log.error({ err }, "request failed");
          return response(packet, CODES.internal, "", { messageId: messageId() });
        })
        .then((reply) => {
          if (packet.confirmable) remember(exchange, reply);
          send(reply);
          markReplied();
        })
        .catch((err: unknown) => log.error({ err }, "answer not sent"));
    },
    close() {
      clearInterval(sweeper);
      uploads.clear();
      representations.clear();
    },
  };
}
