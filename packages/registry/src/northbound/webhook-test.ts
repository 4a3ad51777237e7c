import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { Caller } from "../domain/caller.js";
import type { FeedEvent } from "./events.js";
import { upsertDelivery } from "./webhook-dispatcher.js";
import { sendDelivery, type AttemptResult } from "./webhook-sender.js";
import { webhookRow } from "./webhooks.js";

/** The answer of a test delivery: its id and what the receiver answered. */
export interface TestDeliveryResult extends AttemptResult {
  deliveryId: string;
}

/**
 * Sends one `test` event to a webhook of the caller's tenant now (once, no retry, whether the webhook is enabled or
 * not), signed like every delivery, and records it in the webhook's deliveries. DATA_NOT_FOUND for other tenants'.
 */
export async function sendTestDelivery(
  db: Kysely<Database>,
  caller: Caller,
  id: number,
  options: { timeoutMs: number; allowPrivate: boolean },
  now = Date.now(),
): Promise<TestDeliveryResult> {
  const row = await webhookRow(db, caller, id);
  const deliveryId = `${id}-test-${randomBytes(6).toString("hex")}`;
  const event = {
    id: 0,
    type: "test",
    tenantID: row.tenantId,
    productID: null,
    deviceID: null,
    time: now,
    data: { message: "test delivery" },
  } as unknown as FeedEvent;
  const r = await sendDelivery(
    { url: row.url, secret: row.secret, deliveryId, webhookId: id, event },
    options.timeoutMs,
    options.allowPrivate,
  );
  await upsertDelivery(db, row, event, deliveryId, r.ok ? "delivered" : "failed", 1, r, Date.now());
  return { deliveryId, ...r };
}
