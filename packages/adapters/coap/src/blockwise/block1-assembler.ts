import { blockSize, type BlockOption } from "./block-option.js";

/** Limits of Block1 reassembly; they bound its memory to about maxTransfers × maxBodyBytes. */
export interface Block1AssemblerOptions {
  /** Largest body, bytes (IOT_MAX_MESSAGE_SIZE): a larger announced Size1 or accumulated body is refused. */
  readonly maxBodyBytes: number;
  /** Most uploads reassembled at once; one more is refused until one ends or times out. */
  readonly maxTransfers: number;
  /** An upload whose next block does not come within this many ms is dropped (its device then gets 4.08). */
  readonly idleTimeoutMs: number;
  /** Largest block exponent the server takes, told to the client in every 2.31 (RFC 7959 §2.3, control usage). */
  readonly maxSzx: number;
}

/** What to answer a block of an upload (RFC 7959 §2.3, §2.9). */
export type Block1Outcome =
  /** More blocks to come: answer 2.31 Continue with this Block1. */
  | { readonly kind: "continue"; readonly block: BlockOption }
  /** The last block: the request with this whole body goes on; its response carries this Block1. */
  | { readonly kind: "complete"; readonly body: Buffer; readonly block: BlockOption }
  /** A block out of order or of an upload this server does not hold: 4.08 Request Entity Incomplete. */
  | { readonly kind: "incomplete"; readonly reason: string }
  /** Announced (Size1) or accumulated size over the limit: 4.13 Request Entity Too Large, Size1 = the limit. */
  | { readonly kind: "too-large"; readonly size: number }
  /** A block that breaks RFC 7959 (a non-last block shorter or longer than its size): 4.00. */
  | { readonly kind: "invalid"; readonly reason: string }
  /** Too many uploads at once: 5.03 with Max-Age, retry after this many ms. */
  | { readonly kind: "busy"; readonly retryAfterMs: number };

interface Transfer {
  readonly chunks: Buffer[];
  received: number;
  lastAt: number;
  lastOffset: number;
  lastLength: number;
}

/**
 * Reassembles Block1 uploads (RFC 7959 §2.5) in order, one per key (the caller's: sender and request options). Pure
 * apart from the clock, which every call takes, so abandoned uploads are dropped by any later call or by `sweep`.
 * A block 0 (re)starts an upload; each next block must start where the body so far ends; the repeat of the last
 * block is answered again without being added twice.
 */
export class Block1Assembler {
  /** Least recently active first. */
  private readonly transfers = new Map<string, Transfer>();

  constructor(private readonly options: Block1AssemblerOptions) {}

  /** Uploads in progress. */
  get size(): number {
    return this.transfers.size;
  }

  /** Takes one block of the upload `key`, announced total `size1` (when the client sent Size1), at time `now` (ms). */
  offer(key: string, block: BlockOption, payload: Buffer, size1: number | undefined, now: number): Block1Outcome {
    this.sweep(now);
    const { maxBodyBytes, maxTransfers, idleTimeoutMs, maxSzx } = this.options;
    const size = blockSize(block.szx);
    const offset = block.num * size;
    if (block.more && payload.length !== size) {
      this.transfers.delete(key);
      return { kind: "invalid", reason: `block ${block.num} has ${payload.length} bytes, not its size ${size}` };
    }
    if (size1 !== undefined && size1 > maxBodyBytes) {
      this.transfers.delete(key);
      return { kind: "too-large", size: size1 };
    }
    if (offset + payload.length > maxBodyBytes) {
      this.transfers.delete(key);
      return { kind: "too-large", size: offset + payload.length };
    }
    let transfer = this.transfers.get(key);
    if (offset === 0) {
      if (!block.more) {
        this.transfers.delete(key);
        return { kind: "complete", body: payload, block };
      }
      if (!transfer && this.transfers.size >= maxTransfers) {
        const oldest = this.transfers.values().next().value!;
        return { kind: "busy", retryAfterMs: oldest.lastAt + idleTimeoutMs - now };
      }
      transfer = { chunks: [], received: 0, lastAt: now, lastOffset: -1, lastLength: 0 };
    } else if (!transfer) {
      return { kind: "incomplete", reason: `no upload in progress for block ${block.num}; start with block 0` };
    } else if (block.more && offset === transfer.lastOffset && payload.length === transfer.lastLength) {
      transfer.lastAt = now; // a repeated block: answered again, not added twice
      this.transfers.delete(key);
      this.transfers.set(key, transfer);
      return { kind: "continue", block: { num: block.num, more: true, szx: Math.min(block.szx, maxSzx) } };
    } else if (offset !== transfer.received) {
      this.transfers.delete(key);
      return { kind: "incomplete", reason: `expected the block at byte ${transfer.received}, got byte ${offset}` };
    }
    transfer.chunks.push(payload);
    transfer.received += payload.length;
    transfer.lastAt = now;
    transfer.lastOffset = offset;
    transfer.lastLength = payload.length;
    this.transfers.delete(key);
    if (!block.more) return { kind: "complete", body: Buffer.concat(transfer.chunks, transfer.received), block };
    this.transfers.set(key, transfer);
    return { kind: "continue", block: { num: block.num, more: true, szx: Math.min(block.szx, maxSzx) } };
  }

  /** Drops uploads idle for idleTimeoutMs at time `now`; answers how many. */
  sweep(now: number): number {
    let dropped = 0;
    for (const [key, t] of this.transfers) {
      if (now - t.lastAt < this.options.idleTimeoutMs) break;
      this.transfers.delete(key);
      dropped++;
    }
    return dropped;
  }

  /** Drops every upload. */
  clear(): void {
    this.transfers.clear();
  }
}
