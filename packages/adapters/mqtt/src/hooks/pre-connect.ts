import type { AedesOptions } from "aedes";
import { clientIpOf } from "../client-table.js";
import type { AdapterContext } from "../context.js";

/**
 * MQTT-3.1 CONNECT, before authentication: keeps what CONNECT said (the
 * claimed client id, keepalive, Clean Start, Topic Alias Maximum) and the client IP while the
 * socket is still open. A persistent session (clean session 0, or a Session
 * Expiry Interval above 0) lives in the registry's store, keyed by the device
 * and its client id (docs/devices/mqtt.md "Persistent sessions"); a device
 * that sent no client id has none to come back to, so its session is made
 * clean (an MQTT 5.0 device's Session Expiry Interval becomes 0, §3.1.2.11.2).
 */
export function preConnectHook(ctx: AdapterContext): NonNullable<AedesOptions["preConnect"]> {
  return (client, packet, done) => {
    ctx.clients.noteConnect(client, {
      claimedId: packet.clientId ?? "",
      keepAlive: packet.keepalive ?? 0,
      clientIp: clientIpOf(client),
      protocolVersion: packet.protocolVersion ?? 4,
      cleanStart: packet.clean !== false || !packet.clientId,
      topicAliasMaximum: packet.protocolVersion === 5 ? (packet.properties?.topicAliasMaximum ?? 0) : 0,
    });
    if (!packet.clientId) {
      packet.clean = true;
      if (packet.properties?.sessionExpiryInterval) packet.properties.sessionExpiryInterval = 0;
    }
    done(null, true);
  };
}
