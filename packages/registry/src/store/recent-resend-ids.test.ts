import type { CompiledQuery, Transaction } from "kysely";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { RecentResendIds } from "./recent-resend-ids.js";
import { RESEND_SCAN_ROWS, RESEND_WINDOW_MS } from "./resend-match.js";
import type { Database } from "./schema.js";
import type { Store, UplinkRecord } from "./store.js";
import { engines } from "./test-engines.js";

const sqlite = engines.find((e) => e.name === "sqlite")!;
const T0 = 1_700_000_000_000;

function uplink(deviceIntId: number, seq: number, over: Partial<UplinkRecord> = {}): UplinkRecord {
  return {
    msgKey: `a:${deviceIntId}:${seq}`,
    tenantId: "t1",
    deviceIntId,
    gatewayIntId: null,
    topic: "up/data",
    payload: Buffer.from(`reading-${seq}`),
    ip: null,
    qos: 1,
    msgTime: T0,
    resendId: `coap:${seq}:00`,
    ...over,
  };
}

/** Stores `n` uplinks of the device, one resend id each. */
async function fill(store: Store, deviceIntId: number, n: number): Promise<void> {
  const writes = Array.from({ length: n }, (_, i) => store.uplinks.write(uplink(deviceIntId, i)));
  await Promise.all(writes);
}

/** `recent`'s answer for `record` (within a transaction, as the writer asks). */
const lookUp = (store: Store, recent: RecentResendIds, record: UplinkRecord) =>
  store.db.transaction().execute((trx) => recent.latestStoredCopy(trx, record));

describe("RecentResendIds", () => {
  afterEach(async () => {
    vi.restoreAllMocks();
    await sqlite.closeAll();
  });
  afterAll(() => sqlite.cleanup());

  it("holds at most its bound of ids, dropping the device looked up least recently, and still answers for it", async () => {
    const { store } = await sqlite.open({ batchMaxRows: 2_000, batchMaxDelayMs: 1 });
    await fill(store, 7, RESEND_SCAN_ROWS);
    await fill(store, 8, RESEND_SCAN_ROWS);
    const recent = new RecentResendIds(RESEND_SCAN_ROWS);
    const resend = (deviceIntId: number, seq: number) => uplink(deviceIntId, seq, { msgKey: "b:1", maybeResend: true });
    expect(await lookUp(store, recent, resend(7, 3))).toMatchObject({ topic: "up/data", msgTime: T0 });
    expect(recent.size).toBe(RESEND_SCAN_ROWS);
    await lookUp(store, recent, resend(8, 3));
    expect(recent.size).toBe(RESEND_SCAN_ROWS);
    // Device 7 was dropped: read again from the database.
    expect(Buffer.from((await lookUp(store, recent, resend(7, 4)))!.payload).toString()).toBe("reading-4");
    expect(recent.size).toBe(RESEND_SCAN_ROWS);
  });

  it("drops the device looked up least recently, however often the others were looked up in between", async () => {
    const { store } = await sqlite.open({ batchMaxRows: 2_000, batchMaxDelayMs: 1 });
    const half = RESEND_SCAN_ROWS / 2;
    for (const id of [7, 8, 9]) await fill(store, id, half);
    const recent = new RecentResendIds(RESEND_SCAN_ROWS);
    let seeds = 0;
    // The transaction as the lookup sees it, counting the reads of a device's ids from the database.
    const counting = (trx: Transaction<Database>) =>
      new Proxy(trx, {
        get(target, key) {
          const value: unknown = Reflect.get(target, key);
          if (key !== "executeQuery") return typeof value === "function" ? value.bind(target) : value;
          return (query: CompiledQuery) => {
            if (query.sql.includes("row_number()")) seeds++;
            return target.executeQuery(query);
          };
        },
      });
    const seedReads = () => seeds;
    const at = Date.now();
    let lookups = 0;
    const look = async (deviceIntId: number) => {
      // A tenth of a second apart: the idle scan (once a second) runs every ten lookups.
      vi.spyOn(Date, "now").mockReturnValue(at + 100 * ++lookups);
      const record = uplink(deviceIntId, 1, { msgKey: "b:1", maybeResend: true });
      await store.db.transaction().execute((trx) => recent.latestStoredCopy(counting(trx), record));
    };
    await look(8);
    for (let i = 0; i < 1_500; i++) await look(7);
    expect(seedReads()).toBe(2);
    await look(9); // over the bound: 8 goes, not 7
    expect(recent.size).toBe(RESEND_SCAN_ROWS);
    await look(7);
    expect(seedReads()).toBe(3);
    await look(8);
    expect(seedReads()).toBe(4);
  });

  it("keeps a device's ids of its last RESEND_SCAN_ROWS uplinks only, as they are stored", async () => {
    const { store } = await sqlite.open({ batchMaxDelayMs: 1 });
    await fill(store, 7, 10);
    const recent = new RecentResendIds();
    expect(await lookUp(store, recent, uplink(7, 0, { msgKey: "b:1" }))).toBeDefined();
    expect(recent.size).toBe(10);
    const later = Array.from({ length: RESEND_SCAN_ROWS }, (_, i) => uplink(7, 10 + i, { resendId: null }));
    recent.stored(later.slice(0, RESEND_SCAN_ROWS - 10), new Set(later.map((r) => r.msgKey)));
    expect(recent.size).toBe(10);
    // Stored rows only: a key the insert did not return was already there.
    recent.stored(later.slice(RESEND_SCAN_ROWS - 10), new Set());
    expect(recent.size).toBe(10);
    recent.stored(later.slice(RESEND_SCAN_ROWS - 10, RESEND_SCAN_ROWS - 9), new Set(later.map((r) => r.msgKey)));
    expect(recent.size).toBe(9);
  });

  it("drops a device not looked up for RESEND_WINDOW_MS", async () => {
    const { store } = await sqlite.open({ batchMaxDelayMs: 1 });
    await fill(store, 7, 10);
    const recent = new RecentResendIds();
    const now = Date.now();
    await lookUp(store, recent, uplink(7, 0, { msgKey: "b:1" }));
    expect(recent.size).toBe(10);
    vi.spyOn(Date, "now").mockReturnValue(now + RESEND_WINDOW_MS + 1_000);
    recent.stored([uplink(7, 10)], new Set(["a:7:10"]));
    expect(recent.size).toBe(0);
  });

  it("reads the ids of uplinks received since a little before its first lookup's window, the database for older resends", async () => {
    const { store } = await sqlite.open({ batchMaxDelayMs: 1 });
    await store.uplinks.write(uplink(7, 1));
    const recent = new RecentResendIds();
    const first = uplink(7, 2, { msgKey: "b:1", msgTime: T0 + 10 * 60_000, maybeResend: true });
    expect(await lookUp(store, recent, first)).toBeUndefined();
    expect(recent.size).toBe(0);
    // Received 5 s after its first copy, but looked up after `first`: beyond what was read, so from the database.
    const resend = uplink(7, 1, { msgKey: "b:2", msgTime: T0 + 5_000, maybeResend: true });
    expect(Buffer.from((await lookUp(store, recent, resend))!.payload).toString()).toBe("reading-1");
  });
});
