// LoRaWAN multicast group commands (docs/devices/lorawan.md, "Multicast"): the registry sends a group command to a
// group with a multicast session as one Downlink carrying the session and the members this adapter holds; the
// frame goes out once through each gateway that last heard one of the class C members, at once on the RX2 channel
// (or the session's data rate and frequency), as class C devices listen there continuously (LoRaWAN 1.0.4 §11.2).
import type { Downlink, DownlinkOutcome, LoraMulticastDownlink, RegistryHandlers } from "@iot/adapter-core";
import { encodeMulticastFrame } from "../codec/multicast-frame.js";
import { planDownlink } from "../codec/region.js";
import type { DeviceState, LastHeard } from "./device-state.js";
import { downlinkPayload, downlinkTopic } from "./downlinks.js";
import type { ServerContext } from "./server-context.js";

const failed = (message: string): DownlinkOutcome => ({ status: "FAILED", message });

/**
 * The gateways covering a group: for each class C member held here, the gateway it was last heard through (one entry
 * per gateway with how many members it covers, the first member's copy kept for its radio context). Members of
 * another region than the first are left out: one frame has one channel plan.
 */
function coveringGateways(members: readonly DeviceState[]): Map<string, { heard: LastHeard; members: number }> {
  const gateways = new Map<string, { heard: LastHeard; members: number }>();
  const region = members[0]?.region.name;
  for (const m of members) {
    if (!m.lastHeard || m.region.name !== region) continue;
    const g = gateways.get(m.lastHeard.gatewayEui);
    if (g) g.members++;
    else gateways.set(m.lastHeard.gatewayEui, { heard: m.lastHeard, members: 1 });
  }
  return gateways;
}

/**
 * Sends one multicast frame per covering gateway. SENT with the gateways that took it and the members they last heard
 * (`multicast`, which the registry counts; the message says the same for people) when at least one did; FAILED with
 * the reason otherwise. A confirmed topic is refused: a multicast frame is never acknowledged.
 */
async function sendMulticast(
  ctx: ServerContext,
  downlink: Downlink,
  mc: LoraMulticastDownlink,
): Promise<DownlinkOutcome> {
  const held = mc.deviceIntIds.map((id) => ctx.states.get(id)).filter((s) => s !== undefined);
  const classC = held.filter((s) => s.lora.classC);
  if (classC.length === 0)
    return failed(held.length === 0 ? "no member is heard by this adapter" : "no member is a class C device");
  const first = classC[0]!;
  const topic = downlinkTopic(downlink.topic, first.lease.session.device.defaultDownlinkTopic);
  if (!topic.ok) return failed(topic.reason);
  if (topic.value.confirmed) return failed("a multicast downlink cannot be confirmed: use dn/<FPort>");
  const payload = downlinkPayload(downlink.payload);
  if (!payload.ok) return failed(payload.reason);
  const phy = encodeMulticastFrame({ ...mc, fPort: topic.value.fPort, payload: payload.value });
  if (!phy.ok) return failed(phy.reason);
  const gateways = coveringGateways(classC);
  const sends: Array<Promise<number>> = [];
  for (const [gatewayEui, { heard, members }] of gateways) {
    const link = ctx.link(gatewayEui);
    if (!link) continue;
    const tx = planDownlink(first.region, heard.rx, phy.value, {
      window: "rx2",
      kind: "data",
      ...(mc.dataRate !== undefined ? { rx2DataRate: mc.dataRate } : {}),
      ...(mc.frequencyHz !== undefined ? { rx2Frequency: mc.frequencyHz } : {}),
    });
    if (!tx.ok) return failed(tx.reason);
    const { tmst: _tmst, ...rest } = tx.value;
    sends.push(
      link
        .transmit({
          region: first.region,
          copy: { gatewayEui, rx: heard.rx, ...(heard.station ? { station: heard.station } : {}) },
          window: "immediate",
          rx1DelayS: first.region.receiveDelay1,
          tx: { ...rest, imme: true },
        })
        .then((out) => {
          if (!out.ok) ctx.log.info({ gatewayEui, error: out.error }, "gateway refused a multicast downlink");
          return out.ok ? members : -1;
        }),
    );
  }
  const outcomes = (await Promise.all(sends)).filter((n) => n >= 0);
  const sent = outcomes.length;
  ctx.stats.downlinks += sent;
  if (sent === 0)
    return failed(
      sends.length === 0 ? "no gateway that heard a member has a downlink path" : "every gateway refused it",
    );
  const covered = outcomes.reduce((a, b) => a + b, 0);
  const gatewaysText = `${sent} gateway${sent === 1 ? "" : "s"}`;
  return {
    status: "SENT",
    message: `sent as multicast to ${gatewaysText} that last heard ${covered} of the ${mc.deviceIntIds.length} members`,
    multicast: { gateways: sent, covered },
  };
}

/**
 * The adapter's downlink handler: a multicast Downlink goes to `sendMulticast`, any other to the device's lease
 * (`devices`, the device leases' handlers). `ctx` is read when a downlink comes (the context is built after the
 * handlers are set).
 */
export function withMulticast(
  ctx: () => ServerContext,
  devices: RegistryHandlers,
): (downlink: Downlink) => Promise<DownlinkOutcome> {
  return (downlink) => {
    if (downlink.loraMulticast) return sendMulticast(ctx(), downlink, downlink.loraMulticast);
    return devices.downlink?.(downlink) ?? Promise.resolve(failed("adapter has no downlink handler"));
  };
}
