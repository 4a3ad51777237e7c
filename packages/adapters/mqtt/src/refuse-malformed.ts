import type { Client } from "aedes";
import mqttPacket from "mqtt-packet";
import type { InboundProblem } from "./codec/inbound-checker.js";
import type { AdapterContext } from "./context.js";

/**
 * Closes the connection of a device whose packet the InboundChecker refused, telling an MQTT 5.0 device why
 * (DISCONNECT with the problem's reason code and a reason string). A device that sent the packet together with its
 * CONNECT is told once its CONNACK is written: nothing may go to it before (MQTT-3.2.0-1). Its session closes with
 * the reason. A problem in the CONNECT itself (its will properties) is answered with a CONNACK carrying the code
 * (MQTT 5.0 §4.13.1), written here: the broker never read that CONNECT.
 */
export function refuseMalformed(ctx: AdapterContext, client: Client, problem: InboundProblem): void {
  const state = ctx.clients.state(client);
  if (state) state.closeReason ??= `malformed packet: ${problem.reason}`;
  ctx.stats.denied++;
  const device = state?.session.device;
  ctx.log.warn(
    {
      ...(device ? { deviceId: device.deviceId, tenantId: device.tenantId } : {}),
      code: problem.code,
      reason: problem.reason,
    },
    "packet refused; closing connection",
  );
  const disconnect = () =>
    client.disconnect({ reasonCode: problem.code, properties: { reasonString: problem.reason } });
  if (client.closed) return;
  if (problem.inConnect) {
    const connack = mqttPacket.generate(
      { cmd: "connack", sessionPresent: false, reasonCode: problem.code, properties: { reasonString: problem.reason } },
      { protocolVersion: 5 },
    );
    // Destroyed once written: the withheld CONNECT stays unread, so the stream would never end by itself.
    client.conn.end(connack, () => client.conn.destroy());
    return;
  }
  if (client.connected) return disconnect();
  // Not yet connected: the CONNECT is being handled; aedes closes the connection itself when it is refused.
  client.once("connected", disconnect);
}
