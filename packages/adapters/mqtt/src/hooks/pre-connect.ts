import type { AedesOptions } from "aedes";
import { clientIpOf } from "../client-table.js";
import type { AdapterContext } from "../context.js";

/**
 * MQTT-3.1 CONNECT, before authentication: keeps what CONNECT said (the
 * claimed client id, keepalive) and the client IP while the socket is still
 * open, and makes every session clean. The adapter keeps no session state
 * across connections: it would live only in this process's memory, offline
 * QoS 1 queues there would grow without bound for devices that never return,
 * and the registry already queues commands for offline devices. A device
 * asking for a persistent session gets CONNACK sessionPresent 0, which MQTT
 * 3.1.1 allows (MQTT-3.2.2-2 applies only when state exists); an MQTT 5
 * device's Session Expiry Interval becomes 0 the same way (its session ends
 * with the connection, MQTT 5.0 §3.1.2.11.2).
 */
export function preConnectHook(ctx: AdapterContext): NonNullable<AedesOptions["preConnect"]> {
  return (client, packet, done) => {
    ctx.clients.noteConnect(client, {
      claimedId: packet.clientId ?? "",
      keepAlive: packet.keepalive ?? 0,
      clientIp: clientIpOf(client),
      protocolVersion: packet.protocolVersion ?? 4,
    });
    packet.clean = true;
    if (packet.properties?.sessionExpiryInterval) packet.properties.sessionExpiryInterval = 0;
    done(null, true);
  };
}
