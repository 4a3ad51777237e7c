import type { UplinkRecord } from "../store/store.js";

/** A stored uplink as the pipeline reads it: the record's fields it decodes, with the row's id. */
export type EventRow = Pick<
  UplinkRecord,
  "msgKey" | "tenantId" | "deviceIntId" | "gatewayIntId" | "topic" | "payload" | "msgTime"
> & {
  id: number;
};

/**
 * The uplinks this node's writer stored lately, in id order, handed over at each commit, so that the pipeline need not
 * read back rows it was just given: reading a batch's rows with their payloads cost the central node 13 ms per 1,400
 * uplinks (docs/performance.md, "the data pipeline"). The database stays the truth: `take` answers only when it holds
 * exactly as many rows in the range as the database counted there, so rows written by anyone else (another node on
 * PostgreSQL, an import, a test) or dropped from here make the pipeline read them from the database instead.
 */
export class RecentUplinks {
  #rows: EventRow[] = [];
  /** Index of the oldest row still held in #rows. */
  #head = 0;

  /** @param limit most rows held: when the pipeline falls behind, the oldest go and are read from the database. */
  constructor(private readonly limit: number) {}

  /** Holds the records stored now (those with an id), in id order. */
  add(records: readonly UplinkRecord[], ids: ReadonlyMap<string, number>): void {
    const rows = this.#rows;
    let sorted = true;
    for (const r of records) {
      const id = ids.get(r.msgKey);
      if (id === undefined) continue;
      if (rows.length > this.#head && id <= rows[rows.length - 1]!.id) sorted = false;
      const { msgKey, tenantId, deviceIntId, gatewayIntId, topic, payload, msgTime } = r;
      rows.push({ id, msgKey, tenantId, deviceIntId, gatewayIntId, topic, payload, msgTime });
    }
    if (!sorted) this.#compact().sort((a, b) => a.id - b.id);
    // At most `limit`, the newest; the rows taken or dropped are let go once they are half the array.
    if (this.size > this.limit) this.#head = this.#rows.length - this.limit;
    if (this.#head > 0 && this.#head * 2 >= this.#rows.length) this.#compact();
  }

  /**
   * The rows with `after < id <= upTo` when exactly `count` of them are held (the database's count of that range),
   * else undefined. Either way nothing up to `upTo` is held afterwards.
   */
  take(after: number, upTo: number, count: number): EventRow[] | undefined {
    const rows = this.#rows;
    while (this.#head < rows.length && rows[this.#head]!.id <= after) this.#head++;
    const start = this.#head;
    while (this.#head < rows.length && rows[this.#head]!.id <= upTo) this.#head++;
    return this.#head - start === count ? rows.slice(start, this.#head) : undefined;
  }

  /** How many rows are held. */
  get size(): number {
    return this.#rows.length - this.#head;
  }

  #compact(): EventRow[] {
    this.#rows = this.#rows.slice(this.#head);
    this.#head = 0;
    return this.#rows;
  }
}
