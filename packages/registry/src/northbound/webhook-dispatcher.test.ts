import { createHmac } from "node:crypto";
import type { KyselyPlugin } from "kysely";
import { pino } from "pino";
import { quietFor } from "@iot/config/testing";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import type { Caller } from "../domain/caller.js";
import type { Store } from "../store/store.js";
import { engines } from "../store/test-engines.js";
import { appendEvents, eventsCommitted } from "./events.js";
import { WebhookDispatcher } from "./webhook-dispatcher.js";
import { deliveryBody, signBody, type AttemptResult, type Delivery } from "./webhook-sender.js";
import { createWebhook, getWebhook, listDeliveries } from "./webhooks.js";

const silent = pino({ level: "silent" });
const admin = (tenantId: string): Caller => ({
  userIntId: 1,
  username: "a",
  tenantId,
  role: "admin",
  serviceAdmin: false,
});
const policy = { allowPrivate: true };

async function device(store: Store, tenantId: string, deviceId: string): Promise<number> {
  const now = Date.now();
  const row = await store.db
    .insertInto("devices")
    .values({
      tenantId,
      productIntId: 1,
      deviceId,
      deviceName: deviceId,
      deviceType: 1,
      deviceStatus: 0,
      createAt: now,
      userIntId: 1,
      deviceUsername: deviceId,
      token: "t",
      authType: 1,
    } as never)
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

async function emit(store: Store, tenantId: string, deviceIntId: number, n: number): Promise<void> {
  await store.db
    .transaction()
    .execute((tx) => appendEvents(tx, [{ tenantId, deviceIntId, type: "uplink", time: n, data: { n } }]));
  eventsCommitted();
}

/** A webhook of tenant t1 taking its uplinks. */
const uplinkHook = (store: Store) =>
  createWebhook(
    store.db,
    admin("t1"),
    { webhookName: "h", url: "http://receiver.test/x", eventTypes: ["uplink"], secret: "0123456789abcdef" },
    policy,
  );

/** Waits until `check` answers true (asked again every 20 ms); fails after `ms`. */
async function until(check: () => Promise<boolean> | boolean, ms = 5_000): Promise<void> {
  await vi.waitFor(async () => expect(await check()).toBe(true), { timeout: ms, interval: 20 });
}

describe("webhook signature", () => {
  it("signs the exact body with HMAC-SHA256 of the secret", () => {
    const body = '{"a":1}';
    expect(signBody("s3cret", body)).toBe(`sha256=${createHmac("sha256", "s3cret").update(body).digest("hex")}`);
  });
});

describe.each(engines)("webhook dispatcher on $name", (engine) => {
  afterEach(() => engine.closeAll());
  afterAll(() => engine.cleanup());

  it("keeps each device's order, retries a failure before the device's next event, and lists deliveries", async () => {
    const { store } = await engine.open();
    const [a, b] = [await device(store, "t1", "dev-a"), await device(store, "t1", "dev-b")];
    const other = await device(store, "t2", "dev-x");
    const hook = await uplinkHook(store);
    const seen: Array<[string, number, boolean]> = [];
    let failFirstA = true;
    const send = async (d: Delivery): Promise<AttemptResult> => {
      expect(JSON.parse(deliveryBody(d, 1)).event.tenantID).toBe("t1");
      const fail = d.event.deviceID === "dev-a" && failFirstA;
      failFirstA = false;
      seen.push([d.event.deviceID!, d.event.data.n as number, !fail]);
      return fail ? { ok: false, httpStatus: 503, error: "answered 503" } : { ok: true, httpStatus: 200, error: null };
    };
    for (let n = 1; n <= 3; n++) {
      await emit(store, "t1", a, n);
      await emit(store, "t1", b, 10 + n);
      await emit(store, "t2", other, 100 + n);
    }
    const dispatcher = new WebhookDispatcher(store.db, "n1", silent, { retryBaseMs: 30, pollMs: 20 }, send);
    dispatcher.start();
    await until(async () => (await getWebhook(store.db, admin("t1"), hook.id)).cursor > hook.cursor + 8);
    await dispatcher.stop();
    expect(seen.filter(([d]) => d === "dev-a")).toEqual([
      ["dev-a", 1, false],
      ["dev-a", 1, true],
      ["dev-a", 2, true],
      ["dev-a", 3, true],
    ]);
    expect(seen.filter(([d]) => d === "dev-b").map(([, n]) => n)).toEqual([11, 12, 13]);
    expect(seen.some(([d]) => d === "dev-x")).toBe(false);
    const deliveries = await listDeliveries(store.db, admin("t1"), hook.id, { page: 1, limit: 100 });
    expect(deliveries.count).toBe(6);
    expect(deliveries.items.every((d) => d.status === "delivered")).toBe(true);
    expect(deliveries.items.find((d) => d.deviceId === "dev-a" && d.attempts === 2)).toBeDefined();
    expect((await getWebhook(store.db, admin("t1"), hook.id)).failingSince).toBeNull();
  });

  it("does not send a page again when its list of webhooks was read before the previous pass committed", async () => {
    const { store } = await engine.open();
    const a = await device(store, "t1", "dev-a");
    const hook = await uplinkHook(store);
    const seen: number[] = [];
    const send = async (d: Delivery): Promise<AttemptResult> => {
      seen.push(d.event.data.n as number);
      return { ok: true, httpStatus: 200, error: null };
    };
    // Every read of the webhooks answers late, as from a busy database: a look for new events that starts while a
    // pass delivers gets its rows from before that pass's commit.
    const slowReads: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        await quietFor(40, "a busy database answers late");
        return args.result;
      },
    };
    for (let n = 1; n <= 3; n++) await emit(store, "t1", a, n);
    const dispatcher = new WebhookDispatcher(
      store.db.withPlugin(slowReads),
      "n1",
      silent,
      { pollMs: 5, gatherMs: 0 },
      send,
    );
    dispatcher.start();
    await until(async () => (await getWebhook(store.db, admin("t1"), hook.id)).cursor >= hook.cursor + 3);
    // Asserted: nothing is sent again afterwards, which no event can say; the passes of this time would.
    await quietFor(300, "a page sent a second time would be sent within these passes (pollMs 5)");
    await dispatcher.stop();
    expect(seen).toEqual([1, 2, 3]);
  });

  it("keeps its cursor past other tenants' events in memory, stores it later, and delivers its own next event once", async () => {
    const { store } = await engine.open();
    const [mine, theirs] = [await device(store, "t1", "dev-a"), await device(store, "t2", "dev-x")];
    const hook = await uplinkHook(store);
    const seen: number[] = [];
    const send = async (d: Delivery): Promise<AttemptResult> => {
      seen.push(d.event.data.n as number);
      return { ok: true, httpStatus: 200, error: null };
    };
    const stored = async () => (await getWebhook(store.db, admin("t1"), hook.id)).cursor;
    const options = { pollMs: 10, gatherMs: 0, passedOverStoreMs: 400 };
    const dispatcher = new WebhookDispatcher(store.db, "n1", silent, options, send);
    dispatcher.start();
    for (let n = 1; n <= 5; n++) await emit(store, "t2", theirs, n);
    // Asserted: the passes over the other tenant's events do NOT store the cursor, so time passes for them to run.
    await quietFor(150, "passes (pollMs 10) go over the other tenant's events meanwhile");
    expect(await stored()).toBe(hook.cursor); // passed over, not stored at every pass
    await until(async () => (await stored()) >= hook.cursor + 5); // stored once passedOverStoreMs is over
    await emit(store, "t1", mine, 6);
    await until(async () => (await stored()) >= hook.cursor + 6);
    // Asserted: event 6 is NOT delivered a second time, which no event can say; the passes of this time would.
    await quietFor(100, "a second delivery of event 6 would come within these passes (pollMs 10)");
    await dispatcher.stop();
    expect(seen).toEqual([6]);
  });

  it("takes its lease once and does not write it again on each pass while more than half of it is left", async () => {
    const { store } = await engine.open();
    const a = await device(store, "t1", "dev-a");
    const hook = await uplinkHook(store);
    const send = async (): Promise<AttemptResult> => ({ ok: true, httpStatus: 200, error: null });
    const lease = () =>
      store.db
        .selectFrom("webhooks")
        .select(["leaseOwner", "leaseUntil", "cursor"])
        .where("id", "=", hook.id)
        .executeTakeFirstOrThrow();
    const dispatcher = new WebhookDispatcher(store.db, "n1", silent, { pollMs: 20, gatherMs: 10 }, send);
    await emit(store, "t1", a, 1);
    dispatcher.start();
    await until(async () => Number((await lease()).cursor) > hook.cursor);
    const first = await lease();
    for (let n = 2; n <= 4; n++) {
      // Asserted at the end: passes over a lease with more than half left do NOT write it, so time passes for some.
      await quietFor(30, "a pass or two (pollMs 20) runs between two events");
      await emit(store, "t1", a, n);
      await until(async () => Number((await lease()).cursor) >= Number(first.cursor) + n - 1);
    }
    const later = await lease();
    await dispatcher.stop();
    expect([first.leaseOwner, later.leaseOwner]).toEqual(["n1", "n1"]);
    expect(Number(later.leaseUntil)).toBe(Number(first.leaseUntil));
    expect((await lease()).leaseOwner).toBeNull(); // let go on stop
    const deliveries = await listDeliveries(store.db, admin("t1"), hook.id, { page: 1, limit: 10 });
    expect(deliveries.count).toBe(4);
  });

  it("disables a webhook that kept failing past the configured time and says why", async () => {
    const { store } = await engine.open();
    const a = await device(store, "t1", "dev-a");
    const hook = await createWebhook(
      store.db,
      admin("t1"),
      { webhookName: "h", url: "http://down.test/x", eventTypes: ["uplink"], secret: "0123456789abcdef" },
      policy,
    );
    await emit(store, "t1", a, 1);
    let attempts = 0;
    const send = async (): Promise<AttemptResult> => {
      attempts++;
      return { ok: false, httpStatus: null, error: "connect ECONNREFUSED" };
    };
    const options = { retryBaseMs: 20, retryMaxMs: 40, disableAfterMs: 150, pollMs: 20 };
    const dispatcher = new WebhookDispatcher(store.db, "n1", silent, options, send);
    dispatcher.start();
    await until(async () => (await getWebhook(store.db, admin("t1"), hook.id)).enabled === 0);
    await dispatcher.stop();
    const after = await getWebhook(store.db, admin("t1"), hook.id);
    expect(after.disabledReason).toMatch(/ECONNREFUSED/);
    expect(after.cursor).toBe(hook.cursor);
    expect(attempts).toBeGreaterThan(2);
    const [last] = (await listDeliveries(store.db, admin("t1"), hook.id, { page: 1, limit: 10 })).items;
    expect(last).toMatchObject({ status: "failed", error: "connect ECONNREFUSED" });
  });
});
