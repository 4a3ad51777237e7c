/** Datagrams waiting behind one in progress (a PSK lookup or a client certificate check); more are dropped. */
const MAX_QUEUED = 16;
const IDLE = Promise.resolve();

/**
 * The order a session takes its datagrams in: one whose processing waits (a handshake message behind a PSK lookup)
 * holds back the ones after it, at most {@link MAX_QUEUED}. While nothing waits, a datagram is taken at once, with no
 * promise of its own: an established session's data, the common case, costs no microtask per record.
 */
export class ReceiveQueue {
  private chain = IDLE;
  private queued = 0;

  /** Whether a datagram may be taken at once: nothing before it is still being processed. */
  get idle(): boolean {
    return this.queued === 0;
  }

  /**
   * Runs `task` after the tasks before it, `onError` with what it threw or rejected with; dropped when
   * {@link MAX_QUEUED} wait already.
   */
  push(task: () => Promise<void>, onError: (e: unknown) => void): void {
    if (this.queued >= MAX_QUEUED) return;
    this.queued++;
    this.chain = this.chain
      .then(task)
      .catch(onError)
      .finally(() => {
        if (--this.queued === 0) this.chain = IDLE; // nothing kept of the datagrams processed
      });
  }
}
