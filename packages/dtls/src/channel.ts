import type { RecordProtection } from "./protection.js";
import { ContentType, type DtlsRecord, DTLS12, encodeRecord } from "./record.js";
import { ReplayWindow } from "./replay.js";
import { ok, refuse, type Result } from "./result.js";

/**
 * One association's record state: the next sequence number of each epoch this side writes, a replay window for each
 * epoch it reads, and epoch 1's protection once the handshake has agreed on keys. Epoch 0 is plaintext: nothing
 * tells a spoofed record from the client's own, so its window moves only for records the handshake used
 * ({@link consumed}); an epoch 1 record moves its window once it authenticates (RFC 6347 §4.1.2.6).
 */
export class RecordChannel {
  private readonly sendSeq = [0, 0];
  private readonly windows = [new ReplayWindow(), new ReplayWindow()];
  private write: RecordProtection | undefined;
  private read: RecordProtection | undefined;
  private readCid: Buffer | undefined;
  private writeCid: Buffer | undefined;

  /**
   * `firstSeq`: the number of the ClientHello that returned the cookie, which the handshake has used; the server's
   * first record reuses it (RFC 6347 §4.2.1).
   */
  constructor(firstSeq: number) {
    this.sendSeq[0] = firstSeq;
    this.windows[0]!.mark(firstSeq);
  }

  /** An epoch 0 record whose handshake message the handshake took: a copy of it is a replay from now on. */
  consumed(seq: number): void {
    this.windows[0]!.mark(seq);
  }

  /** Takes epoch 1's protections, which the record writer uses from the ChangeCipherSpec on. */
  useKeys(read: RecordProtection, write: RecordProtection): void {
    this.read = read;
    this.write = write;
  }

  /**
   * Connection IDs (RFC 9146): `read` is the one this side handed out, which the peer's epoch 1 records may carry;
   * `write`, the peer's, goes into every epoch 1 record sent (none when the peer asked for an empty one).
   */
  useConnectionIds(read: Buffer, write: Buffer | undefined): void {
    this.readCid = read;
    this.writeCid = write && write.length > 0 ? write : undefined;
  }

  /** The length of this side's connection ID, which tls12_cid records are decoded with (0: none). */
  get cidLength(): number {
    return this.readCid?.length ?? 0;
  }

  get hasKeys(): boolean {
    return this.write !== undefined;
  }

  /** The record carrying `plaintext` under `epoch`, protected when the epoch is 1. */
  record(type: number, epoch: 0 | 1, plaintext: Buffer): Buffer {
    const seq = this.sendSeq[epoch]!++;
    let body = plaintext;
    if (epoch === 1) {
      if (!this.write) throw new Error("epoch 1 written before keys were agreed");
      const cid = this.writeCid;
      if (cid) {
        // RFC 9146 §4: DTLSInnerPlaintext is the content, then its real type, no padding.
        body = this.write.seal(ContentType.tls12Cid, epoch, seq, Buffer.concat([plaintext, Buffer.from([type])]), cid);
        return encodeRecord({ type: ContentType.tls12Cid, version: DTLS12, epoch, seq, cid, body });
      }
      body = this.write.seal(type, epoch, seq, plaintext);
    }
    return encodeRecord({ type, version: DTLS12, epoch, seq, body });
  }

  /**
   * A received record's content type and plaintext, refused when replayed, from an unknown epoch, or not authentic.
   * `protection` opens epoch 1 with keys not yet taken (a candidate PSK's). `newest`: no record of its epoch with a
   * higher sequence number came before (RFC 9146 §6 moves a peer's address only for such a record). An epoch 0 record
   * is only checked against the window: the caller marks it with {@link consumed} if the handshake uses it.
   */
  open(record: DtlsRecord, protection = this.read): Result<Opened> {
    const window = this.windows[record.epoch];
    if (!window) return refuse(`record: epoch ${record.epoch} unknown`);
    if (!window.mayAccept(record.seq)) return refuse("record: replayed");
    if (record.epoch === 0) return ok({ type: record.type, plaintext: record.body, newest: false });
    if (!protection) return refuse("record: epoch 1 before keys");
    if (record.cid && !(this.readCid && record.cid.equals(this.readCid))) return refuse("record: not our CID");
    const opened = protection.open(record.type, record.epoch, record.seq, record.body, record.cid);
    if (!opened.ok) return opened;
    let plaintext = opened.value;
    let type = record.type;
    if (record.cid) {
      const inner = innerPlaintext(plaintext);
      if (!inner.ok) return inner;
      ({ type, plaintext } = inner.value);
    }
    return ok({ type, plaintext, newest: window.mark(record.seq) });
  }
}

/** An authenticated record: its (inner) content type and plaintext, and whether it is its epoch's newest. */
export interface Opened {
  type: number;
  plaintext: Buffer;
  newest: boolean;
}

/** RFC 9146 §4: the real content type is the last non-zero byte; the zeros after it are padding. */
function innerPlaintext(inner: Buffer): Result<{ type: number; plaintext: Buffer }> {
  let end = inner.length - 1;
  while (end >= 0 && inner[end] === 0) end--;
  if (end < 0) return refuse("record: DTLSInnerPlaintext without a content type");
  return ok({ type: inner[end]!, plaintext: inner.subarray(0, end) });
}
