import { quietFor } from "@iot/config/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Store } from "../store/store.js";
import { engines } from "../store/test-engines.js";
import { appendEvents, feedSignal, newestEventId, pruneEvents, readEvents, type NewEvent } from "./events.js";

/** A tenant with a product and two devices; answers their int ids. */
async function seed(store: Store, tenantId: string, prefix: string): Promise<number[]> {
  const now = Date.now();
  await store.db
    .insertInto("tenants")
    .values({ tenantId, tenantName: tenantId, enable: 1, createAt: now, updateAt: null })
    .execute();
  const product = await store.db
    .insertInto("products")
    .values({
      tenantId,
      userIntId: 1,
      productId: `${prefix}-p`,
      productName: "p",
      description: null,
      cloudProtocol: 1,
      createAt: now,
      updateAt: null,
    } as never)
    .returning("id")
    .executeTakeFirstOrThrow();
  const ids: number[] = [];
  for (const d of ["a", "b"]) {
    const row = await store.db
      .insertInto("devices")
      .values({
        tenantId,
        productIntId: product.id,
        deviceId: `${prefix}-${d}`,
        deviceName: d,
        deviceType: 1,
        deviceStatus: 0,
        userIntId: 1,
        deviceUsername: `${prefix}-${d}`,
        token: "t",
        authType: 1,
        createAt: now,
      } as never)
      .returning("id")
      .executeTakeFirstOrThrow();
    ids.push(Number(row.id));
  }
  return ids;
}

const event = (tenantId: string, deviceIntId: number, type: NewEvent["type"], n: number): NewEvent => ({
  tenantId,
  deviceIntId,
  type,
  time: 1_700_000_000_000 + n,
  data: { n },
});

describe.each(engines)("northbound outbox on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("answers appended events in id order with the device's deviceID and productID, filtered by tenant", async () => {
    const { store } = await engine.open();
    const [a1, b1] = await seed(store, "t1", "one");
    const [a2] = await seed(store, "t2", "two");
    await store.db
      .transaction()
      .execute((tx) =>
        appendEvents(tx, [event("t1", a1!, "uplink", 1), event("t2", a2!, "uplink", 2), event("t1", b1!, "online", 3)]),
      );
    const t1 = await readEvents(store.db, { tenantId: "t1", afterId: 0, limit: 10 });
    expect(t1.map((e) => [e.type, e.deviceID, e.productID, e.data.n])).toEqual([
      ["uplink", "one-a", "one-p", 1],
      ["online", "one-b", "one-p", 3],
    ]);
    expect(t1[0]!.id).toBeLessThan(t1[1]!.id);
    const all = await readEvents(store.db, { afterId: 0, limit: 10 });
    expect(all.map((e) => e.tenantID)).toEqual(["t1", "t2", "t1"]);
    expect(await newestEventId(store.db)).toBe(all.at(-1)!.id);
  });

  it("filters by event type, product and device, and reads after an id up to another", async () => {
    const { store } = await engine.open();
    const [a, b] = await seed(store, "t1", "one");
    await store.db
      .transaction()
      .execute((tx) =>
        appendEvents(tx, [event("t1", a!, "uplink", 1), event("t1", b!, "uplink", 2), event("t1", a!, "offline", 3)]),
      );
    const q = { tenantId: "t1", afterId: 0, limit: 10 };
    expect((await readEvents(store.db, { ...q, types: ["offline"] })).map((e) => e.data.n)).toEqual([3]);
    expect((await readEvents(store.db, { ...q, deviceIds: ["one-b"] })).map((e) => e.data.n)).toEqual([2]);
    expect((await readEvents(store.db, { ...q, productIds: ["nope"] })).length).toBe(0);
    const [first, second] = await readEvents(store.db, q);
    expect((await readEvents(store.db, { ...q, afterId: first!.id, upToId: second!.id })).map((e) => e.data.n)).toEqual(
      [2],
    );
  });

  it("stores an uplink event in the uplink's own transaction, once even when the uplink is replayed", async () => {
    const { store } = await engine.open();
    const [a] = await seed(store, "t1", "one");
    const woke: number[] = [];
    const onCommit = () => woke.push(1);
    feedSignal.on("committed", onCommit);
    const up = {
      msgKey: "i:1",
      tenantId: "t1",
      deviceIntId: a!,
      gatewayIntId: null,
      topic: "data",
      payload: new TextEncoder().encode("hello"),
      ip: null,
      qos: 1,
      msgTime: 5,
    };
    expect(await store.uplinks.write(up)).toBe("stored");
    expect(await store.uplinks.write(up)).toBe("duplicate");
    feedSignal.off("committed", onCommit);
    const events = await readEvents(store.db, { afterId: 0, limit: 10 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "uplink", deviceID: "one-a", time: 5, data: { topic: "data", qos: 1 } });
    expect(Buffer.from(events[0]!.data.payload as string, "base64").toString()).toBe("hello");
    expect(woke.length).toBeGreaterThan(0);
  });

  it("carries an uplink's metadata (how it arrived) in its event, as an object", async () => {
    const { store } = await engine.open();
    const [a] = await seed(store, "t1", "one");
    const gateways = [{ gatewayEui: "aa555a0000000001", rssi: -60, snr: 7 }];
    const up = (msgKey: string, metadata: string) => ({
      msgKey,
      tenantId: "t1",
      deviceIntId: a!,
      gatewayIntId: null,
      topic: "up/1",
      payload: new TextEncoder().encode("hi"),
      ip: null,
      qos: 0,
      msgTime: 5,
      metadata,
    });
    expect(await store.uplinks.write(up("l:1", JSON.stringify({ fCnt: 1, gateways })))).toBe("stored");
    expect(await store.uplinks.write(up("l:2", "not json"))).toBe("stored");
    const [first, second] = await readEvents(store.db, { afterId: 0, limit: 10 });
    expect(first!.data.metadata).toEqual({ fCnt: 1, gateways });
    expect(second!.data.metadata).toBe("not json");
  });

  /** An uplink of `deviceIntId` for the store's writer. */
  const uplink = (msgKey: string, tenantId: string, deviceIntId: number, msgTime: number) => ({
    msgKey,
    tenantId,
    deviceIntId,
    gatewayIntId: null,
    topic: `up/${msgKey}`,
    payload: new TextEncoder().encode(msgKey),
    ip: null,
    qos: 1,
    msgTime,
  });

  it("keeps an uplink's payload once: its event points at the stored row, and the feed reads the fields from it", async () => {
    const { store } = await engine.open();
    const [a, gw] = await seed(store, "t1", "one");
    const up = {
      msgKey: "g:1",
      tenantId: "t1",
      deviceIntId: a!,
      gatewayIntId: gw!,
      topic: "up/7",
      payload: new TextEncoder().encode("through the gateway"),
      ip: null,
      qos: 1,
      msgTime: 9,
      metadata: JSON.stringify({ rssi: -70 }),
    };
    expect(await store.uplinks.write(up)).toBe("stored");
    const row = await store.db.selectFrom("deviceEvents").select("id").executeTakeFirstOrThrow();
    const outbox = await store.db.selectFrom("northboundEvents").select(["data", "uplinkIds"]).execute();
    expect(outbox).toEqual([{ data: "{}", uplinkIds: JSON.stringify([Number(row.id)]) }]);
    const [event] = await readEvents(store.db, { afterId: 0, limit: 10 });
    expect(event!.data).toEqual({
      topic: "up/7",
      qos: 1,
      payload: Buffer.from("through the gateway").toString("base64"),
      viaGateway: true,
      metadata: { rssi: -70 },
    });
    // A row retention deleted before its event was read: the event still comes, with empty data.
    await store.db.deleteFrom("deviceEvents").execute();
    expect((await readEvents(store.db, { afterId: 0, limit: 10 })).map((e) => [e.type, e.data])).toEqual([
      ["uplink", {}],
    ]);
  });

  it("writes one outbox row per tenant for a batch of uplinks, and gives each uplink its own event and id", async () => {
    const { store } = await engine.open();
    const [a, b] = await seed(store, "t1", "one");
    const [c] = await seed(store, "t2", "two");
    await store.db.transaction().execute((tx) => appendEvents(tx, [event("t1", a!, "online", 0)]));
    // Written together, the five share one batch.
    const outcomes = await Promise.all([
      store.uplinks.write(uplink("k1", "t1", a!, 101)),
      store.uplinks.write(uplink("k2", "t2", c!, 102)),
      store.uplinks.write(uplink("k3", "t1", b!, 103)),
      store.uplinks.write(uplink("k4", "t1", a!, 104)),
      store.uplinks.write(uplink("k5", "t2", c!, 105)),
    ]);
    expect(outcomes).toEqual(["stored", "stored", "stored", "stored", "stored"]);
    await store.db.transaction().execute((tx) => appendEvents(tx, [event("t1", b!, "offline", 6)]));
    const rows = await store.db.selectFrom("northboundEvents").select(["tenantId", "type"]).orderBy("id").execute();
    expect(rows.map((r) => `${r.tenantId} ${r.type}`)).toEqual(["t1 online", "t1 uplink", "t2 uplink", "t1 offline"]);
    const all = await readEvents(store.db, { afterId: 0, limit: 20 });
    expect(all.map((e) => [e.type, e.tenantID, e.deviceID, e.productID, e.time, e.data.topic ?? e.data.n])).toEqual([
      ["online", "t1", "one-a", "one-p", 1_700_000_000_000, 0],
      ["uplink", "t1", "one-a", "one-p", 101, "up/k1"],
      ["uplink", "t1", "one-b", "one-p", 103, "up/k3"],
      ["uplink", "t1", "one-a", "one-p", 104, "up/k4"],
      ["uplink", "t2", "two-a", "two-p", 102, "up/k2"],
      ["uplink", "t2", "two-a", "two-p", 105, "up/k5"],
      ["offline", "t1", "one-b", "one-p", 1_700_000_000_006, 6],
    ]);
    // One id per event, rising, none taken twice; the newest is the last event's.
    const ids = all.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.at(-2)! - ids[1]!).toBe(4);
    expect(await newestEventId(store.db)).toBe(ids.at(-1));
    // A tenant's reader sees its own.
    const t2 = await readEvents(store.db, { tenantId: "t2", afterId: 0, limit: 20 });
    expect(t2.map((e) => e.id)).toEqual([ids[4], ids[5]]);
  });

  it("reads a batch's uplink events page by page from a cursor inside it, filtered by device and product", async () => {
    const { store } = await engine.open();
    const [a, b] = await seed(store, "t1", "one");
    await Promise.all([a, b, a, b, a].map((device, i) => store.uplinks.write(uplink(`k${i}`, "t1", device!, 200 + i))));
    const topics = (events: { data: Record<string, unknown> }[]) => events.map((e) => e.data.topic);
    const q = { afterId: 0, limit: 2 };
    const first = await readEvents(store.db, q);
    expect(topics(first)).toEqual(["up/k0", "up/k1"]);
    const second = await readEvents(store.db, { ...q, afterId: first[1]!.id });
    expect(topics(second)).toEqual(["up/k2", "up/k3"]);
    expect(topics(await readEvents(store.db, { ...q, afterId: second[1]!.id }))).toEqual(["up/k4"]);
    expect(topics(await readEvents(store.db, { ...q, deviceIds: ["one-b"] }))).toEqual(["up/k1", "up/k3"]);
    // A tenant's reader (a webhook) finds its devices' uplinks by device.
    const t1 = { ...q, tenantId: "t1" };
    expect(topics(await readEvents(store.db, { ...t1, deviceIds: ["one-b"] }))).toEqual(["up/k1", "up/k3"]);
    expect(
      topics(await readEvents(store.db, { ...t1, afterId: second[0]!.id, deviceIds: ["one-a", "one-b"] })),
    ).toEqual(["up/k3", "up/k4"]);
    expect(await readEvents(store.db, { ...t1, deviceIds: ["one-b"], productIds: ["two-p"] })).toEqual([]);
    expect(topics(await readEvents(store.db, { ...q, afterId: first[0]!.id, deviceIds: ["one-a"] }))).toEqual([
      "up/k2",
      "up/k4",
    ]);
    expect(await readEvents(store.db, { ...q, productIds: ["two-p"] })).toEqual([]);
    expect(topics(await readEvents(store.db, { ...q, types: ["online"] }))).toEqual([]);
  });

  it("gives every event its own id when uplink batches and other events commit at the same time", async () => {
    const { store } = await engine.open();
    const [a, b] = await seed(store, "t1", "one");
    const [c] = await seed(store, "t2", "two");
    const writes: Array<Promise<unknown>> = [];
    for (let round = 0; round < 6; round++) {
      for (const [i, [tenant, device]] of (
        [
          ["t1", a],
          ["t2", c],
          ["t1", b],
        ] as const
      ).entries())
        writes.push(store.uplinks.write(uplink(`r${round}-${i}`, tenant, device!, round)));
      // Other events in transactions of their own, on other connections where the engine has them.
      writes.push(store.db.transaction().execute((tx) => appendEvents(tx, [event("t1", a!, "online", round)])));
      writes.push(store.db.transaction().execute((tx) => appendEvents(tx, [event("t2", c!, "offline", round)])));
    }
    await Promise.all(writes);
    const all = await readEvents(store.db, { afterId: 0, limit: 100 });
    expect(all).toHaveLength(30);
    const ids = all.map((e) => e.id);
    expect(new Set(ids).size).toBe(30);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(
      all
        .filter((e) => e.type === "uplink")
        .map((e) => e.data.topic)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5].flatMap((r) => [0, 1, 2].map((i) => `up/r${r}-${i}`)).sort());
    expect(await newestEventId(store.db)).toBe(ids.at(-1));
    // Read again from every cursor, each event comes once.
    const paged: number[] = [];
    for (let after = 0; ;) {
      const page = await readEvents(store.db, { afterId: after, upToId: ids.at(-1), limit: 4 });
      paged.push(...page.map((e) => e.id));
      if (page.length < 4) break;
      after = page.at(-1)!.id;
    }
    expect(paged).toEqual(ids);
  });

  it("commits no uplink event while another transaction holds a smaller event id uncommitted", async () => {
    const { store } = await engine.open();
    const [a] = await seed(store, "t1", "one");
    let release: () => void = () => {};
    const held = new Promise<void>((r) => (release = r));
    let appended: () => void = () => {};
    const inside = new Promise<void>((r) => (appended = r));
    const other = store.db.transaction().execute(async (tx) => {
      await appendEvents(tx, [event("t1", a!, "online", 1)]);
      appended();
      await held;
    });
    await inside;
    let stored = false;
    const write = store.uplinks.write(uplink("held", "t1", a!, 2)).then(() => (stored = true));
    // A reader that saw the uplink's id now would never see the smaller one, committed later. What is asserted is
    // that the write does NOT commit while the other transaction is open: no event says so, only time passing.
    try {
      await quietFor(300, "a write that did not wait for the smaller uncommitted id would commit within this");
      expect(stored).toBe(false);
    } finally {
      release();
      await Promise.all([other, write]);
    }
    expect((await readEvents(store.db, { afterId: 0, limit: 10 })).map((e) => e.type)).toEqual(["online", "uplink"]);
  });

  it("still reads an uplink event written one row per uplink before migration 0021", async () => {
    const { store } = await engine.open();
    const [a] = await seed(store, "t1", "one");
    expect(await store.uplinks.write(uplink("old", "t1", a!, 7))).toBe("stored");
    const row = await store.db.selectFrom("deviceEvents").select("id").executeTakeFirstOrThrow();
    await store.db.deleteFrom("northboundEvents").execute();
    await store.db
      .insertInto("northboundEvents")
      .values({
        tenantId: "t1",
        deviceIntId: a!,
        type: "uplink",
        eventTime: 7,
        data: "{}",
        createAt: 7,
        uplinkId: row.id,
      })
      .execute();
    const [e] = await readEvents(store.db, { afterId: 0, limit: 5 });
    expect([e!.deviceID, e!.time, e!.data.topic]).toEqual(["one-a", 7, "up/old"]);
  });

  it("prunes events created before a time and keeps the newer ones", async () => {
    const { store } = await engine.open();
    const [a] = await seed(store, "t1", "one");
    await store.db.transaction().execute((tx) => appendEvents(tx, [event("t1", a!, "uplink", 1)], 1_000));
    await store.db.transaction().execute((tx) => appendEvents(tx, [event("t1", a!, "uplink", 2)], 5_000));
    expect(await pruneEvents(store.db, 2_000)).toBe(1);
    expect((await readEvents(store.db, { afterId: 0, limit: 10 })).map((e) => e.data.n)).toEqual([2]);
  });

  it("prunes the oldest events in batches and stops at the first one created after the time", async () => {
    const { store } = await engine.open();
    const [a] = await seed(store, "t1", "one");
    const at = [1_000, 1_100, 1_200, 1_300, 1_400, 1_500, 1_600, 9_000, 1_700];
    for (const [n, time] of at.entries())
      await store.db.transaction().execute((tx) => appendEvents(tx, [event("t1", a!, "uplink", n)], time));
    const counts: number[] = [];
    for (let n = -1; n !== 0;) counts.push((n = await pruneEvents(store.db, 5_000, 3)));
    expect(counts).toEqual([3, 3, 1, 0]);
    // The row after the young one is older, yet kept: pruning goes by id, as rows are appended.
    expect((await readEvents(store.db, { afterId: 0, limit: 10 })).map((e) => e.data.n)).toEqual([7, 8]);
  });
});
