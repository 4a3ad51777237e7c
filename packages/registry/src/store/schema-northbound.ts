import type { Generated } from "kysely";

/**
 * The northbound outbox: one row per event, id = the feed's event id, except the uplinks one batch stored for one
 * tenant, which share a row whose id is their last event id (`uplinkIds`; see northbound/events.ts).
 */
export interface NorthboundEventsTable {
  id: Generated<number>;
  tenantId: string;
  /** The device the event is about (null for none); its deviceID and productID are read by a join. */
  deviceIntId: number | null;
  /** uplink, decoded, online, offline, command_result, alert_opened, alert_closed. */
  type: string;
  /** Epoch ms when it happened. */
  eventTime: number;
  /** JSON text: the event's own fields (`{}` for uplinks: theirs come from their `device_events` rows). */
  data: string;
  createAt: number;
  /**
   * An uplink event's `device_events` row, whose topic, QoS, payload and metadata the feed reads (rows written before
   * migration 0021; null otherwise).
   */
  uplinkId: number | null;
  /**
   * JSON array of the `device_events` ids of the uplinks one batch stored for this tenant: the row stands for that many
   * events, whose ids end at the row's own (appendUplinkEvents). Null for every other row.
   */
  uplinkIds: string | null;
}

/** A tenant's webhook. `cursor`: the id of the last event it went through. */
export interface WebhooksTable {
  id: Generated<number>;
  tenantId: string;
  webhookName: string;
  url: string;
  /** JSON array of event types. */
  eventTypes: string;
  /** JSON array of productIDs, null = every product. */
  productIds: string | null;
  /** JSON array of deviceIDs, null = every device. */
  deviceIds: string | null;
  /** HMAC-SHA256 key of the signatures; never answered. */
  secret: string;
  enabled: number;
  /** Why the service disabled it (null when a user did, or it is enabled). */
  disabledReason: string | null;
  /** Epoch ms of the first failure of the current run of failures, null when the last delivery succeeded. */
  failingSince: number | null;
  cursor: number;
  leaseOwner: string | null;
  leaseUntil: number | null;
  createAt: number;
  updateAt: number | null;
}

/** The last status of one delivery (a webhook and an event, or a test). */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  tenantId: string;
  webhookIntId: number;
  /** `<webhook id>-<event id>` (or `<webhook id>-test-<random>`): the X-IoT-Delivery header. */
  deliveryId: string;
  eventId: number | null;
  eventType: string;
  deviceId: string | null;
  /** delivered, retrying, failed. */
  status: string;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
  createAt: number;
  updateAt: number;
}
