import type { Webhook, WebhookDelivery } from "@iot/registry";
import { formatDate } from "./dates.js";

/** A webhook as answered: never its secret (write-only). */
export function webhook(w: Webhook) {
  return {
    id: w.id,
    webhookName: w.webhookName,
    url: w.url,
    eventTypes: w.eventTypes,
    productIDs: w.productIds ?? [],
    deviceIDs: w.deviceIds ?? [],
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    failingSince: formatDate(w.failingSince),
    lastEventID: w.cursor,
    createAt: formatDate(w.createAt),
    updateAt: formatDate(w.updateAt),
    tenantID: w.tenantId,
  };
}

/** A delivery's last status, as listed. */
export function webhookDelivery(d: WebhookDelivery) {
  return {
    id: Number(d.id),
    deliveryID: d.deliveryId,
    eventID: d.eventId === null ? null : Number(d.eventId),
    eventType: d.eventType,
    deviceID: d.deviceId,
    status: d.status,
    attempts: d.attempts,
    httpStatus: d.httpStatus,
    error: d.error,
    createAt: formatDate(Number(d.createAt)),
    updateAt: formatDate(Number(d.updateAt)),
  };
}
