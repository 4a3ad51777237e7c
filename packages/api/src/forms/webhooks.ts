import { z } from "zod";
import { EVENT_TYPES, type Webhook, type WebhookDelivery } from "@iot/registry";
import { f } from "./common.js";
import { formatDate } from "./dates.js";

/** A webhook record (never its secret). */
export const webhookRecord = z.object({
  id: f.int,
  webhookName: f.str,
  url: f.str,
  eventTypes: z.array(z.enum(EVENT_TYPES)),
  productIDs: z.array(f.str),
  deviceIDs: z.array(f.str),
  enabled: f.int,
  disabledReason: f.strN,
  failingSince: f.date,
  lastEventID: f.int,
  createAt: f.date,
  updateAt: f.date,
  tenantID: f.str,
});

/** A webhook delivery record. */
export const webhookDeliveryRecord = z.object({
  id: f.int,
  deliveryID: f.str,
  eventID: f.intN,
  eventType: f.str,
  deviceID: f.strN,
  status: z.enum(["delivered", "retrying", "failed"]),
  attempts: f.int,
  httpStatus: f.intN,
  error: f.strN,
  createAt: f.date,
  updateAt: f.date,
});

/** A webhook as answered: never its secret (write-only). */
export function webhook(w: Webhook): z.output<typeof webhookRecord> {
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
export function webhookDelivery(d: WebhookDelivery): z.output<typeof webhookDeliveryRecord> {
  return {
    id: Number(d.id),
    deliveryID: d.deliveryId,
    eventID: d.eventId === null ? null : Number(d.eventId),
    eventType: d.eventType,
    deviceID: d.deviceId,
    status: d.status as z.output<typeof webhookDeliveryRecord>["status"],
    attempts: d.attempts,
    httpStatus: d.httpStatus,
    error: d.error,
    createAt: formatDate(Number(d.createAt)),
    updateAt: formatDate(Number(d.updateAt)),
  };
}
