import type { Logger } from "pino";
import { blockSize, fitBlock, sliceBlock, type BlockOption } from "./blockwise/block-option.js";
import { Block1Assembler } from "./blockwise/block1-assembler.js";
import { RepresentationCache } from "./blockwise/representation-cache.js";
import type { DuplicateCache, Remembered } from "./duplicate-cache.js";
import { notification, response, type AnswerOptions } from "./encode-message.js";
import type { CoapHandler, CoapRequest, Confirmation, Peer, RequestHead } from "./message-layer.js";
import { CODES, type DecodedRequest } from "./messages.js";
import type { Retransmitter } from "./retransmitter.js";

/** Most responses and notifications kept for their later blocks, and their total bytes. */
const MAX_REPRESENTATIONS = 1_000;
const MAX_REPRESENTATION_BYTES = 32 * 1024 * 1024;

/** What the server side shares with the rest of the layer. */
export interface ServerExchangeOptions {
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  readonly maxTransfers: number;
  readonly transferTimeoutMs: number;
  readonly maxSzx: number;
  readonly describe: ((request: RequestHead) => Record<string, unknown>) | undefined;
  /** See MessageLayerOptions.resumableBlock2. */
  readonly resumableBlock2?: ((path: readonly string[]) => boolean) | undefined;
  /** The layer's message ids (shared with its client side, so no two messages to a peer reuse one). */
  readonly messageId: () => number;
  readonly retransmitter: Retransmitter;
  readonly duplicates: DuplicateCache;
}

/** The server role: requests from peers, to the handler and back. */
export interface ServerExchange {
  /** Takes one decoded request from `peer`; `send` answers it. */
  handle(m: DecodedRequest, peer: Peer, send: (d: Buffer) => void): void;
  /** Drops abandoned block-wise transfers. */
  sweep(now: number): void;
  clear(): void;
}

/** The key of a message from (or to) a peer: its address, port and message id. */
export const messageKey = (peer: Peer, messageId: number): string => `${peer.address}:${peer.port}:${messageId}`;

/** A block-wise transfer is the sender's request on one resource (an upload also has its Request-Tag, RFC 9175). */
const transferOf = (m: DecodedRequest, peer: Peer) => `${peer.address}:${peer.port} ${m.method} ${m.resource}`;

const EMPTY = Buffer.alloc(0);

/** Whether a request's own answer has been sent: its notifications wait for that. */
class Answered {
  #sent = false;
  #waiting: (() => void)[] | undefined;

  /** Resolves once the answer has been sent. */
  wait(): Promise<void> {
    if (this.#sent) return Promise.resolve();
    return new Promise((resolve) => (this.#waiting ??= []).push(resolve));
  }

  /** The answer has been sent. */
  mark(): void {
    this.#sent = true;
    for (const resolve of this.#waiting ?? []) resolve();
    this.#waiting = undefined;
  }
}

/**
 * A request as the handler sees it, with what its notifications need. A plain object per request whose `notify` is
 * one function for all (it reads the request as `this`): the layer made fresh closures and object spreads per
 * request before, and the tsx runtime (esbuild's keepNames) names every such closure with an `Object.defineProperty`
 * call, most of what the CoAP adapter's profile showed as this file's own time.
 */
interface ServedRequest extends CoapRequest {
  readonly decoded: DecodedRequest;
  readonly send: (d: Buffer) => void;
  /** The block size exponent of its answers and notifications. */
  readonly szx: number;
  readonly answered: Answered;
}

/**
 * The server role of the message layer (RFC 7252 §4-5, RFC 7959) under a handler: answers a retransmitted confirmable
 * request with the answer it already made, retransmits confirmable notifications until ACK or RST, reassembles Block1
 * uploads (2.31 Continue, 4.08 for a missing or out-of-order block, 4.13 with Size1 past maxBodyBytes) and serves
 * answers and notifications larger than a block with Block2, later blocks from the same representation.
 */
export function createServerExchange(handler: CoapHandler, options: ServerExchangeOptions): ServerExchange {
  const { logger: log, maxBodyBytes, maxSzx, messageId, retransmitter, duplicates } = options;
  const uploads = new Block1Assembler({
    maxBodyBytes,
    maxTransfers: options.maxTransfers,
    idleTimeoutMs: options.transferTimeoutMs,
    maxSzx,
  });
  const representations = new RepresentationCache({
    maxEntries: MAX_REPRESENTATIONS,
    maxBytes: MAX_REPRESENTATION_BYTES,
    ttlMs: options.transferTimeoutMs,
  });
  let nextEtag = Math.floor(Math.random() * 0xffffffff);
  const etag = () => {
    nextEtag = (nextEtag + 1) >>> 0;
    const b = Buffer.alloc(4);
    b.writeUInt32BE(nextEtag);
    return b;
  };

  /** Sends a confirmable message to `peer` until it is ACKed or RST. */
  const confirm = (peer: Peer, id: number, datagram: Buffer, send: (d: Buffer) => void): Promise<Confirmation> =>
    new Promise((resolve) => retransmitter.start(messageKey(peer, id), datagram, send, (s) => resolve(s.kind)));

  /**
   * A body too large for one block of 2^(szx+4) bytes: keeps it under `key` for the client's requests of the other
   * blocks and answers its first block (or block `num` of a resumed download) with the options that say so;
   * undefined when it fits or `num` is past its end. A Buffer body is kept as it is, not copied (a download served to
   * many clients is held once): the handler must not change it afterwards.
   */
  const firstBlock = (
    key: string,
    code: string,
    payload: Uint8Array,
    szx: number,
    contentFormat?: number,
    tag?: Buffer,
    num = 0,
  ) => {
    if (payload.length <= blockSize(szx)) return undefined;
    const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
    const representation = { code, payload: body, etag: tag ?? etag(), contentFormat };
    representations.put(key, representation, Date.now());
    const first = sliceBlock(representation.payload, num, szx);
    if (!first) return undefined;
    const extra = { block2: first.block, etag: representation.etag, size2: payload.length };
    return { payload: first.payload, extra };
  };

  /** The answer to `packet` (its own message id if it was sent NON). */
  const answer = (
    packet: DecodedRequest["packet"],
    code: string,
    payload: Uint8Array | string,
    extra?: AnswerOptions,
  ) =>
    response(
      packet,
      code,
      payload,
      extra === undefined ? { messageId: messageId() } : { ...extra, messageId: messageId() },
    );

  const tooLarge = (m: DecodedRequest, peer: Peer, size: number) => {
    const head: RequestHead = { peer, method: m.method, path: m.path, query: m.query, queryList: m.queryList };
    log.warn(
      { peer: peer.address, ...options.describe?.(head), size, limit: maxBodyBytes },
      "request refused: body larger than IOT_MAX_MESSAGE_SIZE",
    );
    return answer(m.packet, CODES.tooLarge, `the body is larger than ${maxBodyBytes} bytes`, { size1: maxBodyBytes });
  };

  /** A confirmable notification to the request's sender and token, once its own answer has gone. */
  async function notify(
    this: ServedRequest,
    sequence: number,
    code: string,
    payload: Uint8Array,
    contentFormat?: number,
  ): Promise<Confirmation> {
    await this.answered.wait();
    const id = messageId();
    const first = firstBlock(transferOf(this.decoded, this.peer), code, payload, this.szx, contentFormat);
    const extra = { ...first?.extra, contentFormat };
    const datagram = notification(this.token, id, sequence, code, first?.payload ?? payload, extra);
    return confirm(this.peer, id, datagram, this.send);
  }

  /** The answer to one request (block-wise steps, refusals, or the handler's reply). */
  const serve = async (
    m: DecodedRequest,
    peer: Peer,
    send: (d: Buffer) => void,
    answered: Answered,
  ): Promise<Buffer> => {
    const { packet } = m;
    const now = Date.now();

    /** A later block asked of a resource the handler answers alike every time: made again from its answer. */
    let resumeAt = 0;
    if (m.block2 && m.block2.num > 0) {
      const representation = representations.get(transferOf(m, peer), now);
      const block = fitBlock(m.block2, maxSzx);
      if (!representation && options.resumableBlock2?.(m.path) && m.method === "GET") resumeAt = block.num;
      else if (!representation)
        return answer(packet, CODES.incomplete, "the earlier blocks of this answer are gone: ask block 0");
      else {
        const slice = sliceBlock(representation.payload, block.num, block.szx);
        if (!slice) return answer(packet, CODES.badOption, `block ${m.block2.num} is past the end of the answer`);
        const { code, etag: tag, contentFormat } = representation;
        return answer(packet, code, slice.payload, { block2: slice.block, etag: tag, contentFormat });
      }
    }

    let body = packet.payload;
    let block1: BlockOption | undefined;
    if (m.block1) {
      const outcome = uploads.offer(`${transferOf(m, peer)} ${m.requestTag}`, m.block1, packet.payload, m.size1, now);
      switch (outcome.kind) {
        case "continue":
          return answer(packet, CODES.continue, "", { block1: outcome.block });
        case "incomplete":
          return answer(packet, CODES.incomplete, outcome.reason);
        case "invalid":
          return answer(packet, CODES.badRequest, outcome.reason);
        case "too-large":
          return tooLarge(m, peer, outcome.size);
        case "busy": {
          const head: RequestHead = { peer, method: m.method, path: m.path, query: m.query, queryList: m.queryList };
          log.warn({ peer: peer.address, ...options.describe?.(head) }, "block-wise upload refused: too many at once");
          return answer(packet, CODES.unavailable, "too many uploads at once; try again later", {
            maxAge: Math.max(1, Math.ceil(outcome.retryAfterMs / 1000)),
          });
        }
        case "complete":
          body = outcome.body;
          block1 = outcome.block;
      }
    } else if (Math.max(packet.payload.length, m.size1 ?? 0) > maxBodyBytes) {
      return tooLarge(m, peer, Math.max(packet.payload.length, m.size1 ?? 0));
    }

    const szx = Math.min(m.block2?.szx ?? maxSzx, maxSzx);
    const request: ServedRequest = {
      peer,
      method: m.method,
      path: m.path,
      query: m.query,
      queryList: m.queryList,
      token: packet.token,
      confirmable: packet.confirmable,
      messageId: block1 === undefined ? packet.messageId : undefined,
      observe: m.observe,
      contentFormat: m.contentFormat,
      accept: m.accept,
      payload: body,
      notify,
      decoded: m,
      send,
      szx,
      answered,
    };
    const reply = await handler(request);
    const payload = typeof reply.payload === "string" ? Buffer.from(reply.payload) : (reply.payload ?? EMPTY);
    const { contentFormat, maxAge, observe } = reply;
    const locationPath =
      typeof reply.locationPath === "string" ? reply.locationPath.split("/").filter(Boolean) : reply.locationPath;
    if (payload.length <= blockSize(szx) && block1 === undefined && observe === undefined && resumeAt === 0) {
      // The usual answer: one block, no block-wise or observe options (what the general case below makes of it).
      if (contentFormat === undefined && maxAge === undefined && locationPath === undefined)
        return answer(packet, reply.code, payload);
      return answer(packet, reply.code, payload, { contentFormat, locationPath, maxAge });
    }
    const first = firstBlock(transferOf(m, peer), reply.code, payload, szx, contentFormat, reply.etag, resumeAt);
    if (resumeAt > 0 && !first)
      return answer(packet, CODES.badOption, `block ${resumeAt} is past the end of the answer`);
    const extra = { ...first?.extra, observe, block1, contentFormat, locationPath, maxAge };
    return answer(packet, reply.code, first?.payload ?? payload, extra);
  };

  return {
    handle(m, peer, send) {
      const { packet } = m;
      let exchange: Remembered | undefined;
      if (packet.confirmable) {
        const key = messageKey(peer, packet.messageId);
        const now = Date.now();
        const seen = duplicates.get(key, now);
        if (seen) {
          if (seen.reply) send(seen.reply); // a retransmission: same answer, not handled twice
          return;
        }
        exchange = duplicates.remember(key, undefined, now);
      }
      const answered = new Answered();
      serve(m, peer, send, answered)
        .catch((err: unknown) => {
          log.error({ err }, "request failed");
          return response(packet, CODES.internal, "", { messageId: messageId() });
        })
        .then((reply) => {
          if (exchange !== undefined) exchange.reply = reply;
          send(reply);
          answered.mark();
        })
        .catch((err: unknown) => log.error({ err }, "answer not sent"));
    },
    sweep(now) {
      const dropped = uploads.sweep(now);
      if (dropped > 0) log.debug({ dropped }, "abandoned block-wise uploads dropped");
      representations.sweep(now);
    },
    clear() {
      uploads.clear();
      representations.clear();
    },
  };
}
