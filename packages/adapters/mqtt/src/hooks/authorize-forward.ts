import type { AedesOptions } from "aedes";
import { isAllowed, unmountTopic } from "@iot/adapter-core";
import { allocateMessageId, grantedQosOf } from "../aedes-internals.js";
import type { AdapterContext } from "../context.js";

/**
 * Before aedes writes a PUBLISH to a device: a packet outside the device's
 * mountpoint is never forwarded; the mountpoint is stripped so the device
 * sees its relative topic; the topic is checked again against the device's
 * subscribe policies (they may have changed since it subscribed); QoS is
 * capped at the highest QoS granted to a matching subscription (aedes' own
 * downgrade looks the topic up by its mounted name, which no longer exists
 * once stripped). A downlink the adapter is waiting for gets its message id
 * here, so its PUBACK can be recognised.
 */
export function authorizeForwardHook(ctx: AdapterContext): NonNullable<AedesOptions["authorizeForward"]> {
  return (client, packet) => {
    const state = ctx.clients.state(client);
    if (!state) return null;
    const mounted = packet.topic;
    const relative = unmountTopic(state.session.device.mountpoint, mounted);
    if (relative === undefined) return null;
    if (!isAllowed(state.session.policies, "subscribe", relative, ctx.defaultAllow)) return null;
    const granted = grantedQosOf(client, mounted);
    if (granted >= 0 && granted < packet.qos) packet.qos = granted as 0 | 1 | 2;
    packet.topic = relative;
    const payload = packet.payload as Buffer;
    const mark = state.downlinkMarks.get(payload);
    if (mark) {
      state.downlinkMarks.delete(payload);
      if (packet.qos > 0) packet.messageId = allocateMessageId(client);
      mark(packet);
    }
    return packet;
  };
}
