/**
 * The three places where the adapter reaches past aedes' documented API,
 * kept in one file and checked on every connection so an aedes upgrade that
 * changes them fails loudly (and in the tests) instead of silently:
 *
 * - `client._parser` ('packet' events): aedes has no hook for UNSUBSCRIBE, so
 *   the relative filters are mounted here before aedes looks them up; PUBACKs
 *   are observed here because the 'ack' event carries no packet for clean
 *   sessions.
 * - `client._nextId`: a QoS 1 downlink gets its message id the way aedes'
 *   QoSPacket would assign it, so the adapter knows which PUBACK answers it.
 * - `client.subscriptions`: the granted QoS of each (mounted) filter.
 */
import type { EventEmitter } from "node:events";
import type { Client } from "aedes";
import { topicMatches } from "@iot/adapter-core";

interface Internals {
  _parser: EventEmitter;
  _nextId: number;
  subscriptions: Record<string, { qos: number } | undefined>;
}

function internals(client: Client): Internals {
  const c = client as unknown as Partial<Internals>;
  if (
    !c._parser ||
    typeof c._parser.prependListener !== "function" ||
    typeof c._nextId !== "number" ||
    !c.subscriptions
  ) {
    throw new Error(
      "aedes client internals changed (_parser, _nextId, subscriptions); the MQTT adapter needs updating",
    );
  }
  return c as Internals;
}

/** An MQTT packet as mqtt-packet parses it (only the fields the adapter reads). */
export interface IncomingPacket {
  cmd: string;
  messageId?: number;
  unsubscriptions?: string[];
}

/** Sees every packet from the device before aedes handles it (and may rewrite it). */
export function onIncomingPacket(client: Client, listener: (packet: IncomingPacket) => void): void {
  internals(client)._parser.prependListener("packet", listener);
}

/** Takes the next outgoing message id of the client, exactly as aedes would. */
export function allocateMessageId(client: Client): number {
  const c = internals(client);
  const id = c._nextId;
  c._nextId = id >= 65535 ? 1 : id + 1;
  return id;
}

/**
 * The highest QoS granted to the client's (mounted) filters that match `topic`, -1 when none does; filters in `except`
 * are left out. Read at every downlink (twice: to send it, and by authorizeForward), so it walks the subscriptions in
 * place: listing them as entries first allocated several arrays per downlink.
 */
export function grantedQosOf(client: Client, topic: string, except?: ReadonlySet<string>): number {
  const subscriptions = internals(client).subscriptions;
  let granted = -1;
  for (const filter in subscriptions) {
    const qos = subscriptions[filter]?.qos;
    if (qos === undefined || qos <= granted || except?.has(filter)) continue;
    // A device's own topic is the usual filter: equal strings match without splitting both into levels.
    if (filter === topic || topicMatches(filter, topic)) granted = qos;
  }
  return granted;
}
