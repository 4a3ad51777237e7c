// Class B on the network side (LoRaWAN 1.0.4 §10-14, LoRaWAN 1.1 §8-13): a class B device listens in ping slots
// that follow from the GPS time of the beacon period and its DevAddr, so a command for it is sent at its next ping
// slot as an absolute GPS-time transmission, by a gateway that reported GPS time with the device's last uplink.
import { gpsMsFromUnixMs, nextPingSlot, periodicityOfPingSlotInfo, pingSlotChannel } from "../codec/class-b.js";
import type { TxPacket } from "../codec/radio-packet.js";
import { hzToMhz } from "../codec/radio-packet.js";
import { ok, refuse, type Result } from "../codec/result.js";
import type { Region } from "../codec/region.js";
import type { DeviceState, LastHeard } from "./device-state.js";
import { nextFrame, sent } from "./downlink-frames.js";
import type { Copy, ServerContext } from "./server-context.js";

/** Length of one ping slot, ms: the next downlink takes a slot after the one used last. */
const SLOT_MS = 30;
/**
 * A frame is built and handed to the gateway this long before its ping slot, ms: not earlier, so a class A answer
 * sent meanwhile does not take a later FCntDown than a frame still waiting for its slot, and the gateway need not
 * hold it for up to a beacon period.
 */
const LEAD_MS = 1_000;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    if (ms > 0) setTimeout(resolve, ms).unref();
    else resolve();
  });

/** Whether a gateway's copy carries GPS time (Semtech UDP `tmms`, Basics Station `gpstime`): it can send class B. */
function hasGpsTime(copy: Pick<Copy, "rx" | "station">): boolean {
  if (copy.station) return copy.station.gpstime > 0n;
  return copy.rx.tmms !== undefined && copy.rx.tmms > 0;
}

/**
 * What an accepted uplink tells about class B: the ClassB bit of its FCtrl (the device listens in its ping slots
 * while it is set, and no longer once it is clear) and the copies from GPS gateways. A PingSlotInfoReq's periodicity
 * is kept with the session by {@link pingSlotInfo}.
 */
export function noteClassBUplink(state: DeviceState, classBBit: boolean, copies: readonly Copy[]): void {
  state.classBOn = state.lora.classB === true && classBBit;
  state.gpsCopies = copies
    .filter(hasGpsTime)
    .map((c) => ({ gatewayEui: c.gatewayEui, rx: c.rx, ...(c.station ? { station: c.station } : {}) }));
}

/** A PingSlotInfoReq: keeps its periodicity for the session and queues the PingSlotInfoAns. */
export function pingSlotInfo(state: DeviceState, byte: number): void {
  state.pingSlotPeriodicity = periodicityOfPingSlotInfo(byte);
  state.macOut.push({ type: "PingSlotInfoAns" });
}

/**
 * The txpk of a class B downlink at the GPS time `slotMs` of a ping slot: the region's ping-slot frequency and data
 * rate, its power, coding rate and inverted polarity; refused when the region has no ping-slot channel or the frame
 * is too long for the data rate.
 */
export function pingSlotTx(region: Region, devAddr: string, slotMs: number, phy: Buffer): Result<TxPacket> {
  const channel = pingSlotChannel(region.name, slotMs - (slotMs % 128_000), devAddr);
  if (!channel.ok) return channel;
  const rate = region.downlinkDataRates[channel.value.dr];
  const max = region.maxPayload[channel.value.dr];
  if (rate?.modu !== "LORA" || !max)
    return refuse(`DR${channel.value.dr} is not a LoRa downlink rate of ${region.name}`);
  if (phy.length > max.m + 5)
    return refuse(`a ${phy.length}-byte frame is over the ${max.m + 5} bytes a ${region.name} ping slot allows`);
  return ok({
    tmms: slotMs,
    freq: hzToMhz(channel.value.hz),
    rfch: 0,
    powe: region.downlinkPower(channel.value.hz),
    modu: "LORA",
    datr: `SF${rate.sf}BW${rate.bwKHz}`,
    codr: region.codingRate,
    ipol: true,
    data: phy,
  });
}

/** The first GPS gateway of the device's last uplink that has a downlink path now. */
function gpsGateway(ctx: ServerContext, state: DeviceState): LastHeard | undefined {
  return state.gpsCopies.find((c) => ctx.link(c.gatewayEui));
}

/**
 * Class B: sends the first queued command in the device's next ping slot (at least the schedule margin ahead, after
 * the slot used last) through a GPS gateway that heard its last uplink, handed over {@link LEAD_MS} before the slot,
 * then the next command in a later slot.
 * Nothing is sent while the device's last uplink did not set the ClassB bit or no GPS gateway heard it: the command
 * stays queued for its next uplink's receive windows (class A).
 */
export async function sendClassB(ctx: ServerContext, state: DeviceState): Promise<void> {
  if (state.pinging || !state.classBOn || !state.session || state.awaitingAck || state.queue.length === 0) return;
  const heard = gpsGateway(ctx, state);
  if (!heard) {
    ctx.log.info({ deviceId: state.deviceId }, "class B command waits: no GPS gateway heard the device last");
    return;
  }
  const devAddr = state.session.devAddr;
  const now = gpsMsFromUnixMs(Date.now());
  const slot = nextPingSlot(
    Math.max(now + ctx.scheduleMarginMs, state.lastPingSlotMs + SLOT_MS),
    devAddr,
    state.pingSlotPeriodicity,
  );
  if (!slot.ok) return void ctx.log.warn({ deviceId: state.deviceId, reason: slot.reason }, "no ping slot");
  state.pinging = true;
  state.lastPingSlotMs = slot.value;
  await sleep(slot.value - now - LEAD_MS);
  // Meanwhile an uplink's receive windows may have taken the command, the device left class B or a new session began.
  const link = ctx.link(heard.gatewayEui);
  if (state.session?.devAddr !== devAddr || !state.classBOn || !link || state.awaitingAck || state.queue.length === 0) {
    state.pinging = false;
    return;
  }
  const frame = nextFrame(state, false);
  state.pinging = false;
  if (!frame.ok) return void ctx.log.warn({ deviceId: state.deviceId, reason: frame.reason }, "downlink not built");
  const { phy, item } = frame.value;
  const tx = pingSlotTx(state.region, devAddr, slot.value, phy);
  if (!tx.ok) return item?.settle({ status: "FAILED", message: tx.reason });
  const out = await link.transmit({
    region: state.region,
    copy: heard,
    window: "ping",
    rx1DelayS: state.region.receiveDelay1,
    tx: tx.value,
    ...(state.lora.devEui ? { devEui: state.lora.devEui } : {}),
  });
  if (!out.ok) return item?.settle({ status: "FAILED", message: `gateway refused the class B downlink: ${out.error}` });
  ctx.stats.downlinks++;
  sent(state, item);
  if (state.queue.length > 0 && !state.awaitingAck) void sendClassB(ctx, state);
}
