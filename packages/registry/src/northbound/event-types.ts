/** Every event type of the northbound feed, as named on the wire (webhooks, stream, NATS subjects). */
export const EVENT_TYPES = [
  "uplink",
  "decoded",
  "online",
  "offline",
  "command_result",
  "alert_opened",
  "alert_closed",
] as const;

/** One of EVENT_TYPES. */
export type EventType = (typeof EVENT_TYPES)[number];

/** An event to append: what happened to which device of which tenant, and when (epoch ms). */
export interface NewEvent {
  tenantId: string;
  deviceIntId: number | null;
  type: EventType;
  time: number;
  /** The event's own fields; stored as JSON. */
  data: Record<string, unknown>;
}

/** An event as consumers get it: ids resolved, `id` increasing with commit order. */
export interface FeedEvent {
  id: number;
  type: EventType;
  tenantID: string;
  productID: string | null;
  deviceID: string | null;
  /** Epoch ms when it happened. */
  time: number;
  data: Record<string, unknown>;
}
