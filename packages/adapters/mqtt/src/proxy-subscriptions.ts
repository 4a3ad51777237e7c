import type { Client } from "aedes";
import { mountTopic, type ProxySubscription } from "@iot/adapter-core";
import type { AdapterContext } from "./context.js";

/**
 * Subscribes a device's connection to its proxy subscriptions, as if it had
 * sent SUBSCRIBE itself (no SUBACK goes out). They pass the authorizeSubscribe
 * hook like the device's own, so topic checks and policies still apply.
 */
export function subscribeProxies(
  ctx: AdapterContext,
  client: Client,
  subscriptions: readonly ProxySubscription[],
): void {
  if (subscriptions.length === 0 || client.closed) return;
  const filters = subscriptions.map((s) => ({ topic: s.topic, qos: s.qos as 0 | 1 }));
  client.subscribe(filters, (err) => {
    if (err) ctx.log.warn({ clientId: client.id, err: err.message }, "proxy subscription failed");
  });
}

/**
 * Applies a SubscriptionUpdate to every connection of the device: filters
 * that are gone are unsubscribed, new ones (or new QoS) subscribed. A filter
 * the device also subscribed to itself is one MQTT subscription, so removing
 * the proxy one removes it too.
 */
export function updateProxies(
  ctx: AdapterContext,
  deviceIntId: number,
  now: readonly ProxySubscription[],
  before: readonly ProxySubscription[],
): void {
  const added = now.filter((s) => !before.some((b) => b.topic === s.topic && b.qos === s.qos));
  const gone = before.filter((b) => !now.some((s) => s.topic === b.topic));
  for (const client of ctx.clients.ofDevice(deviceIntId)) {
    const state = ctx.clients.state(client);
    if (!state) continue;
    if (gone.length > 0) {
      const unsubscriptions = gone.map((s) => mountTopic(state.session.device.mountpoint, s.topic));
      for (const filter of unsubscriptions) state.leaving.add(filter);
      client.unsubscribe({ cmd: "unsubscribe", unsubscriptions } as never, (err) => {
        for (const filter of unsubscriptions) state.leaving.delete(filter);
        if (err) ctx.log.warn({ clientId: client.id, err: err.message }, "proxy unsubscribe failed");
      });
    }
    subscribeProxies(ctx, client, added);
  }
  ctx.log.info({ deviceIntId, added: added.length, removed: gone.length }, "device proxy subscriptions updated");
}
