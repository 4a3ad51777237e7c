/**
 * How far a streaming replica is behind its primary, from WAL positions (LSNs) read on both: in bytes (the primary's
 * position minus the replica's replay position) and in seconds (how long ago the primary first wrote what the replica
 * has not replayed yet, from the primary positions sampled at each poll). `pg_last_xact_replay_timestamp()` is not
 * used: on a quiet database it only says how old the last transaction is, which is no lag at all.
 */

/** An LSN (`16/B374D848`) as a number of bytes: exact up to 8 PiB of WAL, far beyond any server's lifetime. */
export function parseLsn(text: string): number {
  const m = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i.exec(text.trim());
  if (!m) throw new Error(`not an LSN: ${JSON.stringify(text)}`);
  return parseInt(m[1]!, 16) * 2 ** 32 + parseInt(m[2]!, 16);
}

/** A primary WAL position and when it was read, ms. */
interface Sample {
  at: number;
  lsn: number;
}

/** The primary's WAL positions of the last polls, to date a replica's replay position. */
export class PrimaryPositions {
  private readonly samples: Sample[] = [];

  /** @param keepMs how far back samples are kept: a replica further behind shows at least this lag. */
  constructor(private readonly keepMs: number) {}

  /** The primary's position `lsn` read at `at`. */
  record(at: number, lsn: number): void {
    const last = this.samples.at(-1);
    // Only a moving position dates anything: a quiet primary keeps its first sample of that position.
    if (last === undefined || lsn > last.lsn) this.samples.push({ at, lsn });
    while (this.samples.length > 1 && this.samples[0]!.at < at - this.keepMs) this.samples.shift();
  }

  /** The newest primary position read, or undefined before the first poll. */
  latest(): number | undefined {
    return this.samples.at(-1)?.lsn;
  }

  /**
   * Seconds a replica that replayed up to `replayed` is behind at `now`: 0 when it has the newest position, else the
   * age of the oldest sample beyond what it replayed (the primary had written that much unseen by then).
   */
  lagSeconds(replayed: number, now: number): number {
    const first = this.samples.find((s) => s.lsn > replayed);
    if (first === undefined) return 0;
    // Positions older than the window were dropped: a replica behind all of them is at least that far behind.
    const oldest = this.samples[0]!;
    const since = oldest.lsn > replayed ? Math.min(oldest.at, now - this.keepMs) : first.at;
    return Math.max(0, (now - since) / 1000);
  }
}
