import { backoffStepMs } from "@iot/config";
import type { Kysely, Selectable } from "kysely";
import type { Logger } from "pino";
import type { Database, WebhooksTable } from "../store/schema.js";
import { feedSignal, newestEventId, readEvents, type FeedEvent } from "./events.js";
import { sendDelivery, type AttemptResult, type Delivery } from "./webhook-sender.js";
import { asWebhook } from "./webhooks.js";

/** Tuning of the dispatcher; every time in ms. Defaults in DEFAULT_WEBHOOK_OPTIONS. */
export interface WebhookOptions {
  /** Longest wait for a receiver's status before the attempt counts as failed. */
  timeoutMs: number;
  /** First retry delay; each further retry doubles it up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A webhook whose deliveries failed without a success for this long is disabled (and says why). */
  disableAfterMs: number;
  /** Deliver to loopback/private/link-local addresses too (the service admin's IOT_WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** How often webhooks are checked for new events besides the wake-ups of feedSignal. */
  pollMs: number;
  /** Most events one pass of one webhook takes. */
  pageSize: number;
  /** How long a node's claim on a webhook lasts unless renewed (another node takes over after it). */
  leaseMs: number;
  /**
   * Shortest time between two looks for new events. Each pass of a webhook commits a transaction (an fsync on
   * SQLite, blocking the event loop ingest shares), so under load a pass should carry many events, not a few:
   * this bounds passes to 1000/gatherMs a second and adds at most this much to a delivery's latency.
   */
  gatherMs: number;
  /**
   * How long a webhook's cursor may move past events it does not take (other tenants', filtered out) before it is
   * stored, ms: storing it at every such pass cost a transaction (an fsync) per webhook per look, 10,000 a second with
   * 1,000 webhooks while any tenant sends. Until then the node keeps it; after a restart or a lease's move the next
   * pass reads that stretch again and finds nothing in it either.
   */
  passedOverStoreMs: number;
}

/** Defaults: 10 s timeout, retries 1 s doubling to 5 min, disabled after 24 h of failures. */
export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = {
  timeoutMs: 10_000,
  retryBaseMs: 1_000,
  retryMaxMs: 300_000,
  disableAfterMs: 86_400_000,
  allowPrivate: false,
  pollMs: 250,
  pageSize: 500,
  leaseMs: 30_000,
  gatherMs: 100,
  passedOverStoreMs: 10_000,
};

type Sender = (d: Delivery, timeoutMs: number, allowPrivate: boolean) => Promise<AttemptResult>;

/**
 * Delivers the outbox's events to webhooks. Each webhook has a cursor (the last event it went through, stored): a
 * pass reads the next page of its tenant's events that match its filters, sends each device's events one after
 * another (devices in parallel), retrying a failure with exponential backoff before that device's next event, and
 * stores the new cursor once the whole page is delivered. So order is kept per device, and after a crash or
 * restart the page is sent again (at least once: receivers de-duplicate by X-IoT-Delivery). A webhook failing with
 * no success for disableAfterMs is disabled with `disabledReason`. A node delivers a webhook only while it holds
 * its lease, so several central nodes never deliver one webhook twice over.
 */
export class WebhookDispatcher {
  readonly #options: WebhookOptions;
  readonly #running = new Map<number, Promise<void>>();
  /** Per webhook, a cursor moved past events it does not take, not stored yet, and since when (passedOverStoreMs). */
  readonly #passedOver = new Map<number, { cursor: number; since: number }>();
  readonly #stop = new AbortController();
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  #lastTick = 0;
  #deferred: NodeJS.Timeout | undefined;
  readonly #wake = () => this.#tick();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly nodeId: string,
    private readonly logger: Logger,
    options: Partial<WebhookOptions> = {},
    private readonly send: Sender = sendDelivery,
  ) {
    this.#options = { ...DEFAULT_WEBHOOK_OPTIONS, ...options };
  }

  /** Starts polling and listening for committed events. */
  start(): void {
    feedSignal.on("committed", this.#wake);
    this.#timer = setInterval(this.#wake, this.#options.pollMs);
    this.#timer.unref();
    this.#tick();
  }

  /** Stops: retries waiting are abandoned (their page is sent again later), passes under way end, leases go. */
  async stop(): Promise<void> {
    feedSignal.off("committed", this.#wake);
    clearInterval(this.#timer);
    clearTimeout(this.#deferred);
    this.#stop.abort();
    await Promise.allSettled([...this.#running.values()]);
    await this.db
      .updateTable("webhooks")
      .set({ leaseOwner: null, leaseUntil: null })
      .where("leaseOwner", "=", this.nodeId)
      .execute()
      .catch((err: unknown) => this.logger.warn({ err }, "releasing webhook leases failed"));
  }

  #tick(): void {
    if (this.#ticking || this.#stop.signal.aborted) return;
    // Commits come hundreds of times a second under load: look at most every gatherMs.
    const wait = this.#lastTick + this.#options.gatherMs - Date.now();
    if (wait > 0) {
      this.#deferred ??= setTimeout(() => {
        this.#deferred = undefined;
        this.#tick();
      }, wait);
      return;
    }
    this.#lastTick = Date.now();
    this.#ticking = true;
    void this.#startPasses()
      .catch((err: unknown) => this.logger.error({ err }, "webhook poll failed"))
      .finally(() => (this.#ticking = false));
  }

  async #startPasses(): Promise<void> {
    const now = Date.now();
    const hooks = await this.db.selectFrom("webhooks").selectAll().where("enabled", "=", 1).execute();
    for (const hook of hooks) {
      const id = Number(hook.id);
      if (this.#running.has(id)) continue;
      const leased = hook.leaseOwner === null || hook.leaseOwner === this.nodeId || Number(hook.leaseUntil) < now;
      if (!leased) continue;
      const pass = this.#pass(id)
        .catch((err: unknown) => this.logger.error({ err, webhook: id }, "webhook pass failed"))
        .finally(() => this.#running.delete(id));
      this.#running.set(id, pass);
    }
  }

  /**
   * Claims the webhook's lease for this node; false when another node holds it. A lease of this node with more than
   * half its time left is kept as it is: renewing it on every pass would cost a write (and an fsync) per pass.
   */
  async #claim(row: Selectable<WebhooksTable>, now: number): Promise<boolean> {
    const id = Number(row.id);
    if (row.leaseOwner === this.nodeId && Number(row.leaseUntil) - now > this.#options.leaseMs / 2) return true;
    const r = await this.db
      .updateTable("webhooks")
      .set({ leaseOwner: this.nodeId, leaseUntil: now + this.#options.leaseMs })
      .where("id", "=", id)
      .where((eb) =>
        eb.or([eb("leaseOwner", "is", null), eb("leaseOwner", "=", this.nodeId), eb("leaseUntil", "<", now)]),
      )
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * One page of one webhook's events, delivered; then its cursor moves on. The row is read again here, not taken from
   * the list that started the pass: that list may have been read before this node's previous pass of the webhook
   * committed, and its old cursor would send that page a second time.
   */
  async #pass(id: number): Promise<void> {
    const row = await this.db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();
    if (row === undefined || row.enabled !== 1) return;
    const hook = asWebhook(row);
    if (!(await this.#claim(row, Date.now()))) return;
    const newest = await newestEventId(this.db);
    const passed = this.#passedOver.get(id);
    const after = Math.max(hook.cursor, passed?.cursor ?? 0);
    // Nothing new, and no cursor passed over waiting to be stored: nothing to do.
    if (newest <= after && passed === undefined) return;
    const events =
      newest <= after
        ? []
        : await readEvents(this.db, {
            tenantId: hook.tenantId,
            afterId: after,
            upToId: newest,
            limit: this.#options.pageSize,
            types: hook.eventTypes,
            productIds: hook.productIds ?? undefined,
            deviceIds: hook.deviceIds ?? undefined,
          });
    // A short page holds every matching event up to `newest` (ids commit in order): the cursor may skip to it.
    const cursor = events.length < this.#options.pageSize ? Math.max(newest, after) : events.at(-1)!.id;
    if (events.length === 0) {
      const since = passed?.since ?? Date.now();
      if (Date.now() - since < this.#options.passedOverStoreMs) return void this.#passedOver.set(id, { cursor, since });
    }
    const byDevice = new Map<string, FeedEvent[]>();
    for (const e of events) {
      const key = e.deviceID ?? "";
      const list = byDevice.get(key);
      if (list === undefined) byDevice.set(key, [e]);
      else list.push(e); // not a copy per event: a page of one device is 500 of them
    }
    const state = { failed: false };
    const delivered: Array<{ event: FeedEvent; attempts: number; httpStatus: number | null }> = [];
    await Promise.all(
      [...byDevice.values()].map(async (list) => {
        for (const event of list) {
          const r = await this.#deliver(row, event, state);
          if (!r) return;
          delivered.push({ event, ...r });
        }
      }),
    );
    if (state.failed || this.#stop.signal.aborted) return;
    await this.#commit(row, delivered, cursor);
    this.#passedOver.delete(id);
  }

  /** Sends one event until it is delivered; undefined when the pass must end (stopped, disabled or edited). */
  async #deliver(
    row: Selectable<WebhooksTable>,
    event: FeedEvent,
    state: { failed: boolean },
  ): Promise<{ attempts: number; httpStatus: number | null } | undefined> {
    const o = this.#options;
    const deliveryId = `${Number(row.id)}-${event.id}`;
    for (let attempt = 1; ; attempt++) {
      if (state.failed || this.#stop.signal.aborted) return undefined;
      const d = { url: row.url, secret: row.secret, deliveryId, webhookId: Number(row.id), event };
      const r = await this.send(d, o.timeoutMs, o.allowPrivate);
      if (r.ok) return { attempts: attempt, httpStatus: r.httpStatus };
      const now = Date.now();
      const current = await this.#recordFailure(row, event, deliveryId, attempt, r, now);
      if (current === undefined) {
        state.failed = true;
        return undefined;
      }
      await sleep(backoffStepMs(attempt, o.retryBaseMs, o.retryMaxMs), this.#stop.signal);
    }
  }

  /**
   * Stores a failed attempt and the webhook's failure run; disables the webhook once the run is older than
   * disableAfterMs. Answers undefined when the webhook must stop (disabled now, or edited, disabled or deleted by a
   * user meanwhile: the next pass reads it again).
   */
  async #recordFailure(
    row: Selectable<WebhooksTable>,
    event: FeedEvent,
    deliveryId: string,
    attempts: number,
    r: AttemptResult,
    now: number,
  ): Promise<true | undefined> {
    const id = Number(row.id);
    const o = this.#options;
    const current = await this.db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();
    if (!current || current.enabled !== 1 || current.updateAt !== row.updateAt) return undefined;
    const since = current.failingSince === null ? now : Number(current.failingSince);
    const disable = now - since >= this.#options.disableAfterMs;
    const reason = `deliveries failed for ${Math.round((now - since) / 1000)} s; last: ${r.error ?? "failed"}`;
    await this.db.transaction().execute(async (tx) => {
      await upsertDelivery(tx, row, event, deliveryId, disable ? "failed" : "retrying", attempts, r, now);
      await tx
        .updateTable("webhooks")
        .set({
          failingSince: since,
          // The lease must outlast the wait before the next attempt, or another node would take the webhook over.
          leaseUntil: now + backoffStepMs(attempts, o.retryBaseMs, o.retryMaxMs) + o.timeoutMs + o.leaseMs,
          ...(disable ? { enabled: 0, disabledReason: reason } : {}),
        })
        .where("id", "=", id)
        .execute();
    });
    if (disable) {
      this.logger.warn({ webhook: id, reason }, "webhook disabled");
      return undefined;
    }
    return true;
  }

  /** Stores a page's deliveries, the new cursor and the end of any failure run, in one transaction. */
  async #commit(
    row: Selectable<WebhooksTable>,
    delivered: ReadonlyArray<{ event: FeedEvent; attempts: number; httpStatus: number | null }>,
    cursor: number,
  ): Promise<void> {
    const now = Date.now();
    await this.db.transaction().execute(async (tx) => {
      const rows = delivered.map((d) => ({
        tenantId: row.tenantId,
        webhookIntId: Number(row.id),
        deliveryId: `${Number(row.id)}-${d.event.id}`,
        eventId: d.event.id,
        eventType: d.event.type,
        deviceId: d.event.deviceID,
        status: "delivered",
        attempts: d.attempts,
        httpStatus: d.httpStatus,
        error: null,
        createAt: now,
        updateAt: now,
      }));
      // 12 columns a row: 500 rows stay below either engine's bound-parameter limit.
      for (let i = 0; i < rows.length; i += 500)
        await tx
          .insertInto("webhookDeliveries")
          .values(rows.slice(i, i + 500))
          .onConflict((oc) =>
            oc.column("deliveryId").doUpdateSet((eb) => ({
              status: eb.ref("excluded.status"),
              attempts: eb.ref("excluded.attempts"),
              httpStatus: eb.ref("excluded.httpStatus"),
              error: eb.ref("excluded.error"),
              updateAt: eb.ref("excluded.updateAt"),
            })),
          )
          .execute();
      await tx
        .updateTable("webhooks")
        .set({ cursor, ...(delivered.length > 0 ? { failingSince: null } : {}) })
        .where("id", "=", Number(row.id))
        .where("cursor", "=", Number(row.cursor))
        .execute();
    });
    // More may be waiting right away.
    if (delivered.length > 0) setImmediate(this.#wake);
  }
}

/** Writes one delivery's last status (insert, or update of the same delivery id). */
export async function upsertDelivery(
  tx: Kysely<Database>,
  row: Pick<Selectable<WebhooksTable>, "id" | "tenantId">,
  event: Pick<FeedEvent, "id" | "type" | "deviceID">,
  deliveryId: string,
  status: "delivered" | "retrying" | "failed",
  attempts: number,
  r: AttemptResult,
  now: number,
): Promise<void> {
  const fields = { status, attempts, httpStatus: r.httpStatus, error: r.error, updateAt: now };
  await tx
    .insertInto("webhookDeliveries")
    .values({
      tenantId: row.tenantId,
      webhookIntId: Number(row.id),
      deliveryId,
      eventId: event.id > 0 ? event.id : null,
      eventType: event.type,
      deviceId: event.deviceID,
      createAt: now,
      ...fields,
    })
    .onConflict((oc) => oc.column("deliveryId").doUpdateSet(fields))
    .execute();
}

/** Waits `ms`, or less when `signal` aborts (never rejects). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done);
  });
}
