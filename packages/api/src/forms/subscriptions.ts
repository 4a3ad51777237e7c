import type { ProxySubscription } from "@iot/registry";
import { formatDate } from "./dates.js";

/** Proxy subscription record `{id, topic, qos, createAt, updateAt}`; `qos` is a digit string, as the spec types it. */
export function subscription(s: ProxySubscription) {
  return {
    id: s.id,
    topic: s.topic,
    qos: String(s.qos),
    createAt: formatDate(s.createAt),
    updateAt: formatDate(s.updateAt),
  };
}
