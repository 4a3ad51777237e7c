/**
 * The anti-replay window of RFC 6347 §4.1.2.6: the highest sequence number seen and a 64-entry bitmap of those
 * below it. A record is checked before its MAC and marked only after, so forged records cannot move the window.
 */
export class ReplayWindow {
  private highest = -1;
  private bits = 0n;

  /** Whether a record with this sequence number may be new: ahead of the window, or inside it and not yet seen. */
  mayAccept(seq: number): boolean {
    if (seq > this.highest) return true;
    const behind = this.highest - seq;
    if (behind >= 64) return false;
    return ((this.bits >> BigInt(behind)) & 1n) === 0n;
  }

  /** Records a sequence number whose record was authenticated; true when it is the highest seen. */
  mark(seq: number): boolean {
    if (seq > this.highest) {
      const shift = this.highest < 0 ? 64 : seq - this.highest;
      this.bits = shift >= 64 ? 1n : ((this.bits << BigInt(shift)) | 1n) & 0xffff_ffff_ffff_ffffn;
      this.highest = seq;
      return true;
    }
    this.bits |= 1n << BigInt(this.highest - seq);
    return false;
  }
}
