import type { RecordProtection } from "./protection.js";
import { type DtlsRecord, DTLS12, encodeRecord } from "./record.js";
import { ReplayWindow } from "./replay.js";
import { ok, refuse, type Result } from "./result.js";

/**
 * One association's record state: the next sequence number of each epoch this side writes, a replay window for each
 * epoch it reads, and epoch 1's protection once the handshake has agreed on keys. Epoch 0 is plaintext.
 */
export class RecordChannel {
  private readonly sendSeq = [0, 0];
  private readonly windows = [new ReplayWindow(), new ReplayWindow()];
  private write: RecordProtection | undefined;
  private read: RecordProtection | undefined;

  /** `firstSeq`: the server's first record reuses the ClientHello's number (RFC 6347 §4.2.1). */
  constructor(firstSeq: number) {
    this.sendSeq[0] = firstSeq;
  }

  /** Takes epoch 1's protections, which the record writer uses from the ChangeCipherSpec on. */
  useKeys(read: RecordProtection, write: RecordProtection): void {
    this.read = read;
    this.write = write;
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
      body = this.write.seal(type, epoch, seq, plaintext);
    }
    return encodeRecord({ type, version: DTLS12, epoch, seq, body });
  }

  /**
   * A received record's plaintext, refused when replayed, from an unknown epoch, or not authentic. `protection`
   * opens epoch 1 with keys not yet taken (a candidate PSK's).
   */
  open(record: DtlsRecord, protection = this.read): Result<Buffer> {
    const window = this.windows[record.epoch];
    if (!window) return refuse(`record: epoch ${record.epoch} unknown`);
    if (!window.mayAccept(record.seq)) return refuse("record: replayed");
    let plaintext = record.body;
    if (record.epoch === 1) {
      if (!protection) return refuse("record: epoch 1 before keys");
      const opened = protection.open(record.type, record.epoch, record.seq, record.body);
      if (!opened.ok) return opened;
      plaintext = opened.value;
    }
    window.mark(record.seq);
    return ok(plaintext);
  }
}
