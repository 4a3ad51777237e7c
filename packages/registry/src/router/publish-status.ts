import type { NewEvent } from "../northbound/events.js";

/** publishStatus codes: 0 failed, 1 issued (queued or in flight), 2 delivered (device acked), 3 sent, no ack needed. */
export const PUBLISH_STATUS = { failed: 0, issued: 1, delivered: 2, sent: 3 } as const;
/** A control log's publishStatus (see PUBLISH_STATUS). */
export type PublishStatus = (typeof PUBLISH_STATUS)[keyof typeof PUBLISH_STATUS];

/** The names of the statuses, as the feed's events and the metrics' outcomes spell them. */
export const STATUS_NAMES: Record<PublishStatus, string> = { 0: "failed", 1: "issued", 2: "delivered", 3: "sent" };

/**
 * The feed's command_result event of a control log whose status changed (see PUBLISH_STATUS): every path that
 * settles or fails a command tells the feed the same way.
 */
export function commandResult(
  log: { id: number; tenantId: string; deviceIntId: number | null; topic: string | null },
  status: PublishStatus,
  message: string,
  now: number,
): NewEvent {
  return {
    tenantId: log.tenantId,
    deviceIntId: log.deviceIntId,
    type: "command_result",
    time: now,
    data: {
      controlLogID: Number(log.id),
      publishStatus: status,
      status: STATUS_NAMES[status],
      topic: log.topic,
      ...(message ? { result: message } : {}),
    },
  };
}
