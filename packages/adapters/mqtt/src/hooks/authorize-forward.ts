import type { AedesOptions } from "aedes";
import { isAllowed, unmountTopic } from "@iot/adapter-core";
import { highestGrantedQos } from "../granted-qos.js";
import type { AdapterContext } from "../context.js";

/**
 * Before aedes writes a PUBLISH to a device: a packet outside the device's
 * mountpoint is never forwarded; the mountpoint is stripped so the device
 * sees its relative topic; the topic is checked again against the device's
 * subscribe policies (they may have changed since it subscribed); QoS is
 * capped at the highest QoS granted to a matching subscription (aedes' own
 * downgrade looks the topic up by its mounted name, which no longer exists
 * once stripped). Every QoS 1/2 PUBLISH gets its packet identifier here,
 * from the connection's own counter (aedes keeps an identifier a forwarded
 * packet has), so the PUBACK of a downlink the adapter waits for is known.
 * A command to an MQTT 5.0 device that accepts topic aliases goes with one
 * (`OutboundTopicAliases`); retained messages and other forwarded publishes
 * keep their full topic name and no alias.
 * aedes hands this hook a packet of its own per subscription, so changing it
 * changes nothing another subscriber gets (its properties object, shared, is
 * replaced rather than changed).
 */
export function authorizeForwardHook(ctx: AdapterContext): NonNullable<AedesOptions["authorizeForward"]> {
  return (client, packet) => {
    const state = ctx.clients.state(client);
    if (!state) return null;
    const mounted = packet.topic;
    const relative = unmountTopic(state.session.device.mountpoint, mounted);
    if (relative === undefined) return null;
    if (!isAllowed(state.session.policies, "subscribe", relative, ctx.defaultAllow)) return null;
    const granted = highestGrantedQos(state.granted, mounted);
    if (granted >= 0 && granted < packet.qos) packet.qos = granted as 0 | 1 | 2;
    packet.topic = relative;
    if (packet.qos > 0) packet.messageId = state.nextMessageId();
    const payload = packet.payload as Buffer;
    const mark = state.downlinkMarks.get(payload);
    if (mark) {
      state.downlinkMarks.delete(payload);
      mark(packet);
      const aliased = state.topicAliases?.use(mounted);
      if (aliased) {
        if (!aliased.named) packet.topic = "";
        packet.properties = { ...packet.properties, topicAlias: aliased.alias };
      }
    }
    return packet;
  };
}
