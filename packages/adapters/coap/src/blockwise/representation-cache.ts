/** A response body served block by block (RFC 7959 §2.4): later blocks come from this very representation. */
export interface Representation {
  /** The response code of every block. */
  readonly code: string;
  /** The Content-Format every block says; undefined: the layer's default. */
  readonly contentFormat?: number;
  /** The whole body. */
  readonly payload: Buffer;
  /** Tells the client that its blocks belong together; a new representation under the same key gets a new one. */
  readonly etag: Buffer;
}

/** Bounds of the cache: entries, bytes held, and how long an untouched entry stays. */
export interface RepresentationCacheOptions {
  readonly maxEntries: number;
  /** Total payload bytes held; the least recently used entries go first. */
  readonly maxBytes: number;
  /** An entry no block was asked of for this many ms is dropped. */
  readonly ttlMs: number;
}

interface Entry {
  readonly representation: Representation;
  lastAt: number;
}

/**
 * Representations being fetched block-wise, by the caller's key (sender and request options without Block2), so a
 * request for block N > 0 is served from what block 0 came from rather than made anew (a GET that hands out a
 * command must not hand out another one). Pure apart from the clock, which every call takes.
 */
export class RepresentationCache {
  /** Least recently used first. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly options: RepresentationCacheOptions) {}

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Keeps `representation` under `key` (replacing what was there); the least recently used go past the bounds. */
  put(key: string, representation: Representation, now: number): void {
    this.remove(key);
    this.entries.set(key, { representation, lastAt: now });
    this.bytes += representation.payload.length;
    this.sweep(now);
    for (const k of this.entries.keys()) {
      if (this.entries.size <= this.options.maxEntries && this.bytes <= this.options.maxBytes) break;
      this.remove(k);
    }
  }

  /** The representation under `key`, if still held; asking keeps it for another ttlMs. */
  get(key: string, now: number): Representation | undefined {
    this.sweep(now);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    entry.lastAt = now;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.representation;
  }

  /** Drops entries untouched for ttlMs at time `now`; answers how many. */
  sweep(now: number): number {
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (now - entry.lastAt < this.options.ttlMs) break;
      this.remove(key);
      dropped++;
    }
    return dropped;
  }

  /** Drops every entry. */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.representation.payload.length;
  }
}
