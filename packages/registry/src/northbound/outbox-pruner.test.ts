import { afterAll, afterEach, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { appendEvents, readEvents } from "./events.js";
import { OutboxPruner } from "./outbox-pruner.js";

describe.each(engines)("outbox pruner on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("deletes events and delivery records older than the retention and keeps the rest", async () => {
    const { store } = await engine.open();
    const ev = (n: number) => ({ tenantId: "t", deviceIntId: null, type: "uplink" as const, time: n, data: { n } });
    await store.db.transaction().execute((tx) => appendEvents(tx, [ev(1), ev(2)], 1_000));
    await store.db.transaction().execute((tx) => appendEvents(tx, [ev(3)], 9_000));
    const delivery = (deliveryId: string, createAt: number) => ({
      tenantId: "t",
      webhookIntId: 1,
      deliveryId,
      eventId: null,
      eventType: "uplink",
      deviceId: null,
      status: "delivered",
      attempts: 1,
      httpStatus: 200,
      error: null,
      createAt,
      updateAt: createAt,
    });
    await store.db
      .insertInto("webhookDeliveries")
      .values([delivery("old", 1_000), delivery("new", 9_000)])
      .execute();
    const pruner = new OutboxPruner(store.db, 5_000, () => {});
    expect(await pruner.pruneOnce(10_000)).toEqual({ events: 2, deliveries: 1 });
    expect((await readEvents(store.db, { afterId: 0, limit: 10 })).map((e) => e.data.n)).toEqual([3]);
    const left = await store.db.selectFrom("webhookDeliveries").select("deliveryId").execute();
    expect(left.map((r) => r.deliveryId)).toEqual(["new"]);
  });
});
