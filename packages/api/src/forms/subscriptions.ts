import { z } from "zod";
import type { ProxySubscription } from "@iot/registry";
import { f } from "./common.js";
import { formatDate } from "./dates.js";

/** A proxy subscription record. */
export const subscriptionRecord = z.object({
  id: f.int,
  topic: f.str,
  qos: z.enum(["0", "1", "2"]),
  createAt: f.date,
  updateAt: f.date,
});

/** Proxy subscription record `{id, topic, qos, createAt, updateAt}`; `qos` is a digit string, as the spec types it. */
export function subscription(s: ProxySubscription): z.output<typeof subscriptionRecord> {
  return {
    id: s.id,
    topic: s.topic,
    qos: String(s.qos) as "0" | "1" | "2",
    createAt: formatDate(s.createAt),
    updateAt: formatDate(s.updateAt),
  };
}
