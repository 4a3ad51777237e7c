import type { Client } from "aedes";
import { unmountTopic, type StoredSubscription } from "@iot/adapter-core";
import type { ClientState } from "./client-table.js";
import type { AdapterContext } from "./context.js";
import type { AedesSubscription } from "./puback-persistence.js";

/**
 * Persistent MQTT sessions (clean session 0, or a Session Expiry Interval above 0), whose state lives in the
 * registry's store rather than this process (docs/devices/mqtt.md "Persistent sessions"): the subscriptions the
 * registry returned at authentication are handed to aedes to restore, and the session's subscription set goes back
 * to the registry after every change and, with its expiry interval, when the connection ends.
 */

/** A stored subscription as aedes restores it: its filter still relative (authorizeSubscribe mounts it). */
export function toAedesSubscription(s: StoredSubscription): AedesSubscription {
  return {
    topic: s.topic,
    qos: Math.min(Math.max(s.qos, 0), 2) as 0 | 1 | 2,
    ...(s.noLocal ? { nl: true } : {}),
    ...(s.retainAsPublished ? { rap: true } : {}),
    ...(s.retainHandling ? { rh: s.retainHandling } : {}),
    ...(s.subscriptionIdentifier ? { subscriptionIdentifier: s.subscriptionIdentifier } : {}),
  };
}

/** A granted subscription (aedes' 'subscribe' event) as the store keeps it, under its relative filter. */
export function toStoredSubscription(sub: AedesSubscription, relative: string): StoredSubscription {
  return {
    topic: relative,
    qos: sub.qos,
    ...(sub.nl ? { noLocal: true } : {}),
    ...(sub.rap ? { retainAsPublished: true } : {}),
    ...(sub.rh ? { retainHandling: sub.rh } : {}),
    ...(sub.subscriptionIdentifier ? { subscriptionIdentifier: sub.subscriptionIdentifier } : {}),
  };
}

/**
 * Handed to aedes to restore for a resumed session that has no subscriptions: aedes answers CONNACK session present
 * from the subscriptions it restores (MQTT-3.2.2-2 asks for 1 whenever a session was stored), and the
 * authorizeSubscribe hook drops this one (`isSessionMarker`), so the session has none. A topic no device filter can
 * be (it is not under a mountpoint), and the object is told by identity.
 */
const SESSION_MARKER_TOPIC = "$session-present";

/** Whether `sub` is the marker a subscription-less resumed session restores (see SESSION_MARKER_TOPIC). */
export function isSessionMarker(state: ClientState, sub: object & { topic: string }): boolean {
  return sub.topic === SESSION_MARKER_TOPIC && state.restoring?.has(sub) === true;
}

/**
 * The device authenticated with the session the registry resumed: aedes asks its persistence for the subscriptions
 * to restore next (by the client id just set), and the authorizeSubscribe hook tells the restored ones by identity.
 */
export function prepareRestore(ctx: AdapterContext, client: Client, state: ClientState): void {
  state.persistent = client.sessionExpiryInterval > 0;
  const resumed = state.session.mqttSession;
  if (!resumed?.present) return;
  const stored = resumed.subscriptions.map(toAedesSubscription);
  const subs = stored.length > 0 ? stored : [{ topic: SESSION_MARKER_TOPIC, qos: 0 as const }];
  state.restoring = new Set(subs);
  ctx.restoring.set(client.id, subs);
}

/** What aedes restores for a client id (asked once per resuming CONNECT). */
export function takeRestored(ctx: AdapterContext, clientId: string): AedesSubscription[] {
  const subs = ctx.restoring.get(clientId) ?? [];
  ctx.restoring.delete(clientId);
  return subs;
}

/**
 * authorizeSubscribe accepted a subscription (now mounted): when it is one being restored, aedes reports no
 * 'subscribe' for it, so the connection's granted subscriptions and stored set take it here.
 */
export function noteRestored(state: ClientState, sub: AedesSubscription, relative: string): void {
  if (!state.restoring?.has(sub)) return;
  state.granted.set(sub.topic, sub.qos);
  state.stored.set(relative, toStoredSubscription(sub, relative));
}

/** A persistent session's SUBSCRIBE was granted (`subs` mounted, with granted QoS or refusal codes): stored. */
export function noteSubscribed(ctx: AdapterContext, client: Client, state: ClientState, subs: AedesSubscription[]) {
  if (!state.persistent || state.phase === "ended") return;
  const { mountpoint } = state.session.device;
  const proxies = new Set(state.session.subscriptions.map((s) => s.topic));
  let changed = false;
  for (const sub of subs) {
    const relative = unmountTopic(mountpoint, sub.topic);
    // Proxy subscriptions are the registry's own, made again at every connect: not part of the device's session.
    if (sub.qos >= 0x80 || relative === undefined || proxies.has(relative)) continue;
    state.stored.set(relative, toStoredSubscription(sub, relative));
    changed = true;
  }
  if (changed) reportSession(ctx, client, state, false);
}

/** A persistent session's UNSUBSCRIBE (mounted filters): stored. */
export function noteUnsubscribed(ctx: AdapterContext, client: Client, state: ClientState, filters: string[]) {
  if (!state.persistent || state.phase === "ended") return;
  const { mountpoint } = state.session.device;
  let changed = false;
  for (const filter of filters) {
    const relative = unmountTopic(mountpoint, filter);
    if (relative !== undefined && state.stored.delete(relative)) changed = true;
  }
  if (changed) reportSession(ctx, client, state, false);
}

/**
 * Sends the session's subscriptions to the registry's store; `ended` when the connection is gone, with the expiry
 * interval in force then (an MQTT 5.0 DISCONNECT may have changed it, to 0 for a session that ends now).
 */
export function reportSession(ctx: AdapterContext, client: Client, state: ClientState, ended: boolean): void {
  if (!state.persistent) return;
  ctx.registry.updateMqttSession(state.session, {
    clientId: state.connect.claimedId,
    subscriptions: [...state.stored.values()],
    expiryInterval: client.sessionExpiryInterval,
    ended,
  });
}
