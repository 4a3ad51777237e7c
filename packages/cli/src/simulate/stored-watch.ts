import { answer, type ApiClient } from "../client.js";

/** A stored uplink as `/device_events` lists it (the members the watch reads). */
export interface StoredEvent {
  readonly id: number;
  readonly deviceID: string;
  readonly topic: string;
  readonly payload: string;
}

interface Waiter {
  readonly value: number;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Watches the uplinks the service stores, for protocols whose adapter acknowledges before storing (LwM2M
 * notifications, Modbus polls): each simulated device reports a counter that only grows, and `stored(deviceID, n)`
 * resolves once an uplink of that device carrying a value ≥ n is listed by `GET /device_events` (so a value overwritten
 * before the adapter saw it counts as stored with its successor). The list is polled every `intervalMs` (100): a
 * latency measured to this resolution overstates the real one by up to that much. Unseen after `timeoutMs` (10 s), it
 * rejects.
 */
export class StoredWatch {
  private readonly highest = new Map<string, number>();
  private readonly waiters = new Map<string, Waiter[]>();
  private lastId = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private pollError: Error | undefined;

  private constructor(
    private readonly client: ApiClient,
    private readonly o: {
      topic: string;
      value: (e: StoredEvent) => number | undefined;
      intervalMs: number;
      timeoutMs: number;
    },
  ) {}

  /**
   * Starts watching uplinks on `topic` stored from now on; `value` reads the counter of one (undefined: not a
   * simulated value).
   */
  static async start(
    client: ApiClient,
    o: { topic: string; value: (e: StoredEvent) => number | undefined; intervalMs?: number; timeoutMs?: number },
  ): Promise<StoredWatch> {
    const w = new StoredWatch(client, { intervalMs: 100, timeoutMs: 10_000, ...o });
    w.lastId = (await w.page(1, 1))[0]?.id ?? 0;
    w.timer = setInterval(() => {
      w.polling ??= w.poll().finally(() => (w.polling = undefined));
    }, w.o.intervalMs);
    return w;
  }

  /** Resolves once device `deviceID` has a stored value ≥ `value`. */
  stored(deviceID: string, value: number): Promise<void> {
    if ((this.highest.get(deviceID) ?? -Infinity) >= value) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const list = this.waiters.get(deviceID) ?? [];
      const timer = setTimeout(() => {
        list.splice(list.indexOf(waiter), 1);
        reject(this.pollError ?? new Error(`not stored within ${this.o.timeoutMs} ms`));
      }, this.o.timeoutMs);
      const waiter: Waiter = { value, resolve, reject, timer };
      list.push(waiter);
      this.waiters.set(deviceID, list);
    });
  }

  /** Stops polling; waiters left reject. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.polling;
    for (const list of this.waiters.values())
      for (const w of list.splice(0)) {
        clearTimeout(w.timer);
        w.reject(new Error("the watch ended before the value was stored"));
      }
  }

  private async page(page: number, limit: number): Promise<StoredEvent[]> {
    const r = await answer(
      this.client.GET("/api/v1/device_events", {
        params: { query: { topic_like: this.o.topic, _limit: String(limit), _page: String(page) } },
      }),
    );
    return r.items;
  }

  /** Reads the events newer than the last seen (newest first, page by page) and settles the waiters they satisfy. */
  private async poll(): Promise<void> {
    try {
      const fresh: StoredEvent[] = [];
      for (let page = 1; ; page++) {
        const items = await this.page(page, 1000);
        const newer = items.filter((e) => e.id > this.lastId);
        fresh.push(...newer);
        if (newer.length < items.length || items.length < 1000) break;
      }
      this.pollError = undefined;
      for (const e of fresh) {
        this.lastId = Math.max(this.lastId, e.id);
        const v = this.o.value(e);
        if (v === undefined || v <= (this.highest.get(e.deviceID) ?? -Infinity)) continue;
        this.highest.set(e.deviceID, v);
        const list = this.waiters.get(e.deviceID) ?? [];
        for (const w of list.filter((w) => w.value <= v)) {
          list.splice(list.indexOf(w), 1);
          clearTimeout(w.timer);
          w.resolve();
        }
      }
    } catch (err) {
      this.pollError = err as Error;
    }
  }
}
