import { topicMatches } from "@iot/adapter-core";

/**
 * The highest QoS granted to a connection's (mounted) filters that match `topic`, -1 when none does; filters in
 * `except` are left out. `granted` is the connection's own record of its SUBACKs (filter → granted QoS), kept from
 * aedes' 'subscribe' and 'unsubscribe' events. Read at every downlink (twice: to send it, and by authorizeForward), so
 * it walks the map in place.
 */
export function highestGrantedQos(
  granted: ReadonlyMap<string, number>,
  topic: string,
  except?: ReadonlySet<string>,
): number {
  let highest = -1;
  for (const [filter, qos] of granted) {
    if (qos <= highest || except?.has(filter)) continue;
    // A device's own topic is the usual filter: equal strings match without splitting both into levels.
    if (filter === topic || topicMatches(filter, topic)) highest = qos;
  }
  return highest;
}
