import { CompiledQuery, type Transaction } from "kysely";
import {
  latestStoredCopy,
  RESEND_SCAN_ROWS,
  RESEND_WINDOW_MS,
  storedCopyByKey,
  type ResendCopy,
} from "./resend-match.js";
import type { Database } from "./schema.js";
import type { UplinkRecord } from "./store.js";

/** Default most resend ids held in memory over all devices (about 200 bytes each). */
const DEFAULT_RECENT_RESEND_IDS = 200_000;

/**
 * How much older than its first lookup's window a device's ids are read, ms: the uplinks looked up next may have been
 * received a little earlier (an adapter's buffer, another adapter's clock). Older lookups read the database.
 */
const FLOOR_MARGIN_MS = 60_000;
/**
 * How often, at most, idle devices are looked for while the ids are within their bound, ms. The scan walks the Map
 * from its oldest entry, and V8 keeps each entry that a lookup moved to the end as a hole there until the table is
 * rebuilt: with 10,000 devices used in turn, scanning at every lookup cost about 7 µs (50,000: 22 µs) in a
 * microbenchmark of that pattern (docs/performance.md, "Costs that grow with the fleet").
 */
const IDLE_SCAN_MS = 1_000;

/** One stored uplink that carries a resend id: where it stands among its device's uplinks, and its key. */
interface Entry {
  readonly resendId: string;
  /** Its place among the device's uplinks counted by `DeviceIds.rows` (1 = the first counted). */
  readonly seq: number;
  readonly msgTime: number;
  readonly msgKey: string;
}

/**
 * One device's resend ids among its last RESEND_SCAN_ROWS stored uplinks, oldest first: what the lookup of
 * `resend-match.ts` would read from its latest rows, without reading them.
 */
class DeviceIds {
  /** The device's uplinks counted so far (the seed's, then every one stored since); the newest has seq `rows`. */
  rows = 0;
  /** When a flagged uplink of the device was last looked up, epoch ms (idle devices are dropped). */
  usedAt = 0;
  /** How many lookups it had: the one of its places in RecentResendIds' queue that is current. */
  uses = 0;
  /** Entries by resend id, oldest first. */
  readonly #byId = new Map<string, Entry[]>();
  /** Every entry, oldest first, from `#head` on. */
  #order: Entry[] = [];
  #head = 0;

  /**
   * @param floor ids of uplinks received before this (epoch ms) may be missing: a lookup reaching further back than
   *   this reads the database
   */
  constructor(
    readonly tenantId: string,
    readonly floor: number,
  ) {}

  /**
   * A device whose latest rows (up to RESEND_SCAN_ROWS) were read: `rows` are those received at `floor` or later
   * with a resend id, each with its rank (1 = the newest), oldest first.
   */
  static read(tenantId: string, floor: number, rows: readonly SeedRow[]): DeviceIds {
    const device = new DeviceIds(tenantId, floor);
    // Only the number of newer rows matters: count as if the device had RESEND_SCAN_ROWS rows so far.
    device.rows = RESEND_SCAN_ROWS;
    for (const r of rows)
      device.#push({ resendId: r.rid, seq: RESEND_SCAN_ROWS + 1 - r.rn, msgTime: Number(r.at), msgKey: r.k });
    return device;
  }

  /** Entries held. */
  get size(): number {
    return this.#order.length - this.#head;
  }

  /** Counts one more stored uplink of the device (with its resend id, if any); returns how many entries that added. */
  add(resendId: string | null | undefined, msgTime: number, msgKey: string): number {
    this.rows++;
    let added = 0;
    if (resendId) {
      this.#push({ resendId, seq: this.rows, msgTime, msgKey });
      added = 1;
    }
    return added - this.#trim();
  }

  #push(entry: Entry): void {
    this.#order.push(entry);
    const same = this.#byId.get(entry.resendId);
    if (same) same.push(entry);
    else this.#byId.set(entry.resendId, [entry]);
  }

  /**
   * The key of the latest entry with `resendId` received at or after `since`, as `device_events` would give it: the
   * latest such row among the device's last RESEND_SCAN_ROWS.
   */
  latest(resendId: string, since: number): string | undefined {
    const same = this.#byId.get(resendId);
    if (!same) return undefined;
    for (let i = same.length - 1; i >= 0; i--) if (same[i]!.msgTime >= since) return same[i]!.msgKey;
    return undefined;
  }

  /** Drops the entries no longer among the device's last RESEND_SCAN_ROWS uplinks; returns how many. */
  #trim(): number {
    const oldest = this.rows - RESEND_SCAN_ROWS;
    let dropped = 0;
    while (this.#head < this.#order.length && this.#order[this.#head]!.seq <= oldest) {
      const entry = this.#order[this.#head++]!;
      const same = this.#byId.get(entry.resendId)!;
      // Entries leave in the order they came, so it is the oldest of its id.
      same.shift();
      if (same.length === 0) this.#byId.delete(entry.resendId);
      dropped++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
    return dropped;
  }
}

/** A row of SEED: a resend id, its uplink's receive time and key, and its rank among the device's latest rows. */
interface SeedRow {
  readonly rid: string;
  readonly at: number | bigint;
  readonly k: string;
  readonly rn: number;
}

/**
 * The resend ids of a device's last RESEND_SCAN_ROWS uplinks received at or after a time, with their ranks (1 = the
 * newest), oldest first: the rows the lookup of `resend-match.ts` reads, once. SQLite only (raw SQL, no plugins:
 * its aliases are single words).
 */
const SEED = `select rid, at, k, rn from (
  select resend_id as rid, msg_time as at, msg_key as k, row_number() over (order by id desc) as rn
  from (select id, resend_id, msg_time, msg_key from device_events where device_int_id = ? and tenant_id = ?
        order by id desc limit ${RESEND_SCAN_ROWS})
) where rid is not null and at >= ? order by rn desc`;

/**
 * The resend lookup of a store that is the only writer of its database (SQLite: one central node holds the data
 * folder's lock), kept in memory. `latestStoredCopy` reads up to RESEND_SCAN_ROWS of the device's latest rows for
 * every flagged uplink (`resend_id` has no index: one would cost every MQTT QoS 1 uplink an index write), and under
 * confirmable CoAP every publish of a young session is flagged. Here a device's first lookup in this process reads
 * those rows once (so what was stored before a restart is found), keeping the ids of uplinks received since a minute
 * before that lookup's window (its floor), and from then on every uplink stored for it is added as it commits
 * (`stored`): a lookup then reads one row, the copy it found, by its key, and only when there is one (a lookup whose
 * window reaches below the floor reads the database as before). It answers exactly what `latestStoredCopy` would:
 * the device's latest row with the id among its last RESEND_SCAN_ROWS, received within RESEND_WINDOW_MS before the
 * uplink.
 *
 * Memory is bounded: a device not looked up for RESEND_WINDOW_MS is dropped, and so is the device looked up least
 * recently while more than `maxIds` ids are held; a dropped device is read from the database again at its next lookup.
 * Nothing but `stored` may write uplinks to the database while this is in use.
 */
export class RecentResendIds {
  /** By device int id. */
  readonly #devices = new Map<number, DeviceIds>();
  /**
   * Every lookup, oldest first from `#head`: a device's current place is its last one (`uses` says which), the
   * others are passed over. Least recently used first without reordering the Map: V8 keeps a deleted Map entry as a
   * hole until the table is rebuilt, and walking from the front of a Map whose front is deleted over and over steps
   * over every hole (the CoAP duplicate cache's cost, docs/performance.md, "Costs that grow with the fleet").
   */
  #queue: ([number, DeviceIds, number] | undefined)[] = [];
  #head = 0;
  readonly #maxIds: number;
  #ids = 0;
  /** When idle devices were last looked for (epoch ms). */
  #scannedAt = 0;

  constructor(maxIds = DEFAULT_RECENT_RESEND_IDS) {
    this.#maxIds = Math.max(RESEND_SCAN_ROWS, maxIds);
  }

  /** Entries held over all devices (for tests). */
  get size(): number {
    return this.#ids;
  }

  /** The device's latest stored copy of `record` (see `latestStoredCopy`), or undefined. Call within the batch. */
  async latestStoredCopy(trx: Transaction<Database>, record: UplinkRecord): Promise<ResendCopy | undefined> {
    const now = Date.now();
    let device = this.#devices.get(record.deviceIntId);
    if (device !== undefined && device.tenantId !== record.tenantId) {
      this.#devices.delete(record.deviceIntId);
      device = this.#forget(device);
    }
    if (device === undefined) {
      const floor = Math.min(now, record.msgTime) - RESEND_WINDOW_MS - FLOOR_MARGIN_MS;
      const query = CompiledQuery.raw(SEED, [record.deviceIntId, record.tenantId, floor]);
      device = DeviceIds.read(record.tenantId, floor, (await trx.executeQuery<SeedRow>(query)).rows);
      this.#ids += device.size;
      this.#devices.set(record.deviceIntId, device);
    }
    device.usedAt = now;
    this.#queue.push([record.deviceIntId, device, ++device.uses]);
    this.#evict(now);
    const since = record.msgTime - RESEND_WINDOW_MS;
    // Received long before it is written (an adapter's buffer): ids that old may not have been read.
    if (since < device.floor) return latestStoredCopy(trx, record);
    const key = device.latest(record.resendId ?? "", since);
    if (key === undefined) return undefined;
    const copy = await storedCopyByKey(trx, key);
    // The row is the device's own (its key says so) unless something else wrote the database: then it is no copy.
    return copy?.deviceIntId === record.deviceIntId ? copy : undefined;
  }

  /**
   * Counts the uplinks of a batch just committed, for the devices held: those of `records` (in the order of their rows)
   * whose key is in `keys` (the rows inserted; the others were already stored).
   */
  stored(records: readonly UplinkRecord[], keys: { has(key: string): boolean }): void {
    if (this.#devices.size === 0) return;
    for (const r of records) {
      const device = this.#devices.get(r.deviceIntId);
      if (device === undefined || !keys.has(r.msgKey)) continue;
      if (device.tenantId === r.tenantId) {
        this.#ids += device.add(r.resendId, r.msgTime, r.msgKey);
      } else {
        this.#devices.delete(r.deviceIntId);
        this.#forget(device);
      }
    }
    this.#evict(Date.now());
  }

  /** Drops idle devices (at most every IDLE_SCAN_MS), then the least recently used ones while over the bound. */
  #evict(now: number): void {
    if (this.#ids <= this.#maxIds && now - this.#scannedAt < IDLE_SCAN_MS) return;
    this.#scannedAt = now;
    const queue = this.#queue;
    for (; this.#head < queue.length; queue[this.#head++] = undefined) {
      const [id, device, use] = queue[this.#head]!;
      if (this.#devices.get(id) !== device || device.uses !== use) continue; // a place it has left
      if (device.usedAt >= now - RESEND_WINDOW_MS && this.#ids <= this.#maxIds) break;
      this.#devices.delete(id);
      this.#forget(device);
    }
    // Places left behind are dropped once they outnumber the devices, so the queue stays within a few times them.
    if (queue.length - this.#head > 2 * this.#devices.size + 1024) {
      this.#queue = queue.filter(
        (e, i) => i >= this.#head && this.#devices.get(e![0]) === e![1] && e![1].uses === e![2],
      );
      this.#head = 0;
    }
  }

  /**
   * Forgets everything (after a batch whose outcome is unknown: its rows may be stored without having been counted);
   * each device is read from the database again at its next lookup.
   */
  clear(): void {
    this.#devices.clear();
    this.#queue = [];
    this.#head = 0;
    this.#ids = 0;
  }

  /** Uncounts a device's entries (the caller drops it from the map); returns undefined. */
  #forget(device: DeviceIds): undefined {
    this.#ids -= device.size;
    return undefined;
  }
}
