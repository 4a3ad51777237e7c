import { DEFAULT_MAX_MESSAGE_SIZE } from "./config.js";
import { AdapterError } from "./errors.js";
import type { Uplink, UplinkSettled } from "./registry-client.js";
import { uplinkSizeProblem } from "./uplink-size.js";

/** Settles an uplink refused before it was buffered: on the next tick, as `publishThen` promises (never at once). */
export function refuseUplink(settled: UplinkSettled, err: Error): void {
  process.nextTick(settled, err);
}

/** The promise of an uplink handed to `start` with its UplinkSettled: resolves when acked, rejects when refused. */
export function uplinkPromise(start: (settled: UplinkSettled) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => start((err) => (err ? reject(err) : resolve())));
}

/** An uplink waiting for the registry's ack, with its sequence number. */
export interface PendingUplink {
  readonly seq: number;
  readonly uplink: Uplink;
}

interface Entry extends PendingUplink {
  /** `performance.now()` when it was added, for the ack latency. */
  readonly addedAt: number;
  readonly settled: UplinkSettled;
}

/** Called when a waiting uplink got room and its seq (see `addOrWait`), to send it. */
export type UplinkAdmitted = (seq: number, uplink: Uplink) => void;

/** An uplink `addOrWait` keeps until the buffer has room. */
interface Waiting {
  readonly uplink: Uplink;
  readonly settled: UplinkSettled;
  readonly admitted: UplinkAdmitted;
}

/**
 * Every uplink the registry has not acknowledged yet, in sequence order.
 * Sequence numbers start at 1, grow by one per uplink and are never reused
 * for the life of the process, so replays after a reconnect keep their seq
 * and the registry can de-duplicate them. Bounded: past `limit` entries
 * `add` refuses instead of growing without end while the registry is away.
 * Every uplink passes it, so it also refuses, before keeping anything, a
 * payload larger than `maxPayloadBytes`: none can ever exceed the registry
 * link's message limit (which would reset the stream on every replay).
 */
export class UplinkBuffer {
  private nextSeq = 1;
  private readonly entries = new Map<number, Entry>();
  /** Uplinks waiting for room, in arrival order (`addOrWait`); at most `limit` of them. */
  private readonly waiting: Waiting[] = [];

  /**
   * @param limit most unacknowledged uplinks kept (default 10000).
   * @param maxPayloadBytes largest payload accepted, bytes (IOT_MAX_MESSAGE_SIZE, default 262144).
   */
  constructor(
    readonly limit = 10_000,
    readonly maxPayloadBytes = DEFAULT_MAX_MESSAGE_SIZE,
  ) {}

  /**
   * Assigns the next seq (answered) and keeps the uplink until acked, when `settled` is called; throws
   * MESSAGE_TOO_LARGE for a payload over the limit (or a topic over MAX_TOPIC_BYTES) and BUFFER_FULL when at the
   * limit, keeping nothing and never calling `settled`.
   */
  add(uplink: Uplink, settled: UplinkSettled): number {
    this.refuseTooLarge(uplink);
    if (this.entries.size >= this.limit) {
      throw new AdapterError(
        "BUFFER_FULL",
        `uplink buffer full: ${this.entries.size} uplinks await the registry's ack (limit ${this.limit}, IOT_ADAPTER_BUFFER_LIMIT)`,
      );
    }
    return this.keep(uplink, settled);
  }

  /**
   * `add`, except that an uplink finding the buffer full (or others already waiting) waits for room, in arrival
   * order, instead of being refused: when acks make room it gets its seq and `admitted` is called with it, to send
   * it. Answers the seq, or 0 while it waits. Throws as `add` does for a payload too large, and BUFFER_FULL only when
   * `limit` uplinks already wait. For devices that send nothing more until an uplink is answered (MQTT: aedes reads a
   * connection's next chunk only once every packet of the last one is done): a slow registry then slows them down
   * instead of their connections being closed.
   */
  addOrWait(uplink: Uplink, settled: UplinkSettled, admitted: UplinkAdmitted): number {
    if (this.waiting.length === 0 && this.entries.size < this.limit) return this.add(uplink, settled);
    this.refuseTooLarge(uplink);
    if (this.waiting.length >= this.limit) {
      throw new AdapterError(
        "BUFFER_FULL",
        `uplink buffer full: ${this.entries.size} uplinks await the registry's ack and ${this.waiting.length} wait ` +
          `for room (limit ${this.limit}, IOT_ADAPTER_BUFFER_LIMIT)`,
      );
    }
    this.waiting.push({ uplink, settled, admitted });
    return 0;
  }

  /** Uplinks waiting for room (`addOrWait`). */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Throws MESSAGE_TOO_LARGE for a payload over the limit or a topic over MAX_TOPIC_BYTES. */
  private refuseTooLarge(uplink: Uplink): void {
    const tooLarge = uplinkSizeProblem(uplink, this.maxPayloadBytes);
    if (tooLarge) throw new AdapterError("MESSAGE_TOO_LARGE", `uplink refused: ${tooLarge}`);
  }

  private keep(uplink: Uplink, settled: UplinkSettled): number {
    const seq = this.nextSeq++;
    this.entries.set(seq, { seq, uplink, addedAt: performance.now(), settled });
    return seq;
  }

  /** Moves waiting uplinks in while there is room, oldest first, and has each sent. */
  private admitWaiting(): void {
    while (this.waiting.length > 0 && this.entries.size < this.limit) {
      const w = this.waiting.shift()!;
      w.admitted(this.keep(w.uplink, w.settled), w.uplink);
    }
  }

  /**
   * The registry stored it: resolve and forget. Answers `performance.now()` of its `add` (for the ack latency), or
   * undefined for an unknown seq (already settled), which is ignored.
   */
  ack(seq: number): number | undefined {
    const e = this.entries.get(seq);
    if (!e) return undefined;
    this.entries.delete(seq);
    settle(e);
    this.admitWaiting();
    return e.addedAt;
  }

  /** The registry will never store it: reject and drop it instead of replaying. False for an unknown seq. */
  reject(seq: number, reason: string): boolean {
    const e = this.entries.get(seq);
    if (!e) return false;
    this.entries.delete(seq);
    settle(e, new AdapterError("UPLINK_REJECTED", `registry rejected uplink ${seq}: ${reason}`));
    this.admitWaiting();
    return true;
  }

  /** Unacknowledged uplinks in ascending seq order, for (re)sending. */
  pending(): PendingUplink[] {
    return [...this.entries.values()].map(({ seq, uplink }) => ({ seq, uplink }));
  }

  /** Rejects everything still pending or waiting (the client is closing); answers how many. */
  failAll(err: Error): number {
    const all = [...this.entries.values(), ...this.waiting.splice(0)];
    this.entries.clear();
    for (const e of all) settle(e, err);
    return all.length;
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Calls an entry's `settled`. One that throws does not stop the others of an ack or close from settling: its error is
 * thrown again on the next tick, as uncaught as a throw in a promise's handler would have been.
 */
function settle(e: Pick<Entry, "settled">, err?: Error): void {
  try {
    e.settled(err);
  } catch (thrown) {
    process.nextTick(() => {
      throw thrown;
    });
  }
}
