import { parseLoraDatr } from "../codec/radio-packet.js";
import { uplinkDataRate } from "../codec/region.js";
import { parseDataFrame, verifyUplink, type AcceptedUplink } from "../codec/uplink.js";
import type { DeviceState, NetworkSession } from "./device-state.js";
import { noteClassBUplink, sendClassB } from "./class-b.js";
import { answerUplink } from "./downlinks.js";
import { ADR_HISTORY, considerAdr, handleMacCommands } from "./mac-handler.js";
import { receptionGpsMs, verifyUplinkOf11 } from "./lorawan11.js";
import { loadDevice, type Heard, type ServerContext } from "./server-context.js";

/** Topic of the device status (battery, margin) a DevStatusAns reports, kept as an event of the device. */
const DEVICE_STATUS_TOPIC = "lora/status";

/**
 * What identifies a frame for good under the strict counter policies (fcntCheck 0 and 1, where a counter is never
 * accepted twice): DevAddr, FCnt and MIC. A retransmission or a replay carries the same, so the store keeps one
 * (`frameId` in the metadata; see the registry's uplinkMsgKey), even when a network server restarted after a crash
 * resumed from a counter reported before its last frames. None for policies that accept a counter again.
 */
function frameId(accepted: AcceptedUplink<NetworkSession>): string | undefined {
  if (accepted.session.fcntCheck !== 0 && accepted.session.fcntCheck !== 1) return undefined;
  return `${accepted.frame.devAddr}:${accepted.fcnt}:${accepted.frame.mic.toString("hex")}`;
}

/** The radio metadata kept with an uplink event (JSON): the frame's counters and every gateway that heard it. */
function uplinkMetadata(heard: Heard, accepted: AcceptedUplink<NetworkSession>, dr: number | undefined) {
  const rx = heard.best.rx;
  const id = frameId(accepted);
  return {
    devAddr: accepted.frame.devAddr,
    fCnt: accepted.fcnt,
    ...(id ? { frameId: id } : {}),
    fPort: accepted.frame.fPort,
    confirmed: accepted.frame.confirmed,
    frequency: rx.freq,
    dataRate: rx.datr,
    ...(dr !== undefined ? { dr } : {}),
    ...(rx.codr !== undefined ? { codingRate: rx.codr } : {}),
    gateways: heard.copies.map((c) => ({
      gatewayEui: c.gatewayEui,
      gatewayID: c.gatewayLease.session.device.deviceId,
      rssi: c.rx.rssi,
      ...(c.rx.lsnr !== undefined ? { snr: c.rx.lsnr } : {}),
      ...(c.rx.chan !== undefined ? { channel: c.rx.chan } : {}),
      ...(c.rx.time !== undefined ? { time: c.rx.time } : {}),
    })),
  };
}

/** Hands an uplink to the registry; true once the registry acknowledged it, false when refused or not stored. */
async function publish(
  ctx: ServerContext,
  state: DeviceState,
  topic: string,
  payload: Buffer,
  metadata?: object,
): Promise<boolean> {
  try {
    const refusal = await state.lease.publish(topic, payload, 0, metadata ? JSON.stringify(metadata) : undefined);
    if (!refusal) return true;
    ctx.log.warn({ deviceId: state.deviceId, topic, reason: refusal.message }, "uplink dropped");
  } catch (err) {
    ctx.log.warn({ deviceId: state.deviceId, topic, err: (err as Error).message }, "uplink not stored");
  }
  return false;
}

/**
 * Stores the application payload of an accepted frame. Its FCnt counts as unstored until the registry answers;
 * once stored, the counters go to the registry at once (not at the next periodic report), so a server restarted
 * after a crash refuses this frame again as a replay instead of storing it twice.
 */
function store(ctx: ServerContext, state: DeviceState, fcnt: number, stored: Promise<boolean>): Promise<boolean> {
  state.unstored.add(fcnt);
  return stored.then((ok) => {
    state.unstored.delete(fcnt);
    const counters = state.reportedCounters;
    if (ok && counters) ctx.registry.reportLoraCounters([counters]);
    return ok;
  });
}

/** Time kept for building and sending the answer after waiting for the registry, ms. */
const ANSWER_SLACK_MS = 50;

/**
 * Whether `stored` says yes before the device's last receive window must be answered (RX2, `receiveDelay1` + 1 s
 * after the uplink, less the scheduling margin): the ACK of a confirmed uplink is the device's only proof of
 * delivery, so it is sent only for what the registry stored. No ACK: the device retransmits the frame.
 */
async function storedInTime(ctx: ServerContext, state: DeviceState, stored: Promise<boolean>, firstHeardAt: number) {
  // ANSWER_SLACK_MS short of the cut-off, so a downlink without the ACK (MAC answers, queued commands) still makes RX2.
  const leftMs =
    firstHeardAt + (state.region.receiveDelay1 + 1) * 1000 - ctx.scheduleMarginMs - ANSWER_SLACK_MS - Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), Math.max(0, leftMs))));
  try {
    return await Promise.race([stored, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A data uplink (LoRaWAN 1.0.2 §4): matched by DevAddr and MIC, its FCnt judged by the device's fcntCheck, its
 * FRMPayload decrypted and stored on `up/<FPort>` with the radio metadata. Replays are refused and logged, a
 * retransmitted confirmed frame is ACKed again; MAC commands are answered, ADR considered, the pending confirmed
 * downlink settled by the ACK bit, and the device answered in its receive windows when there is anything to send.
 */
export async function handleDataUplink(ctx: ServerContext, heard: Heard): Promise<void> {
  const parsed = parseDataFrame(heard.phyPayload);
  if (!parsed.ok || !parsed.value.uplink) {
    ctx.stats.badFrames++;
    return;
  }
  const devAddr = parsed.value.devAddr;
  const state = ctx.byDevAddr.get(devAddr) ?? (await loadDevice(ctx, { devAddr }, heard.best.gatewayLease.clientIp));
  if (!state?.session) {
    ctx.stats.unauthentic++;
    return;
  }
  const session = state.session;
  const verdict = session.v11
    ? verifyUplinkOf11(state, session, session.v11, heard)
    : verifyUplink(heard.phyPayload, () => [session]);
  if (!verdict.ok) {
    ctx.stats.unauthentic++;
    ctx.log.info({ deviceId: state.deviceId, devAddr, reason: verdict.reason }, "uplink refused");
    return;
  }
  const v = verdict.value;
  if (v.kind === "refused") {
    ctx.stats.replays++;
    ctx.log.warn({ deviceId: state.deviceId, devAddr, fcnt: v.fcnt, reason: v.reason }, "replayed uplink refused");
    return;
  }
  state.lease.touch();
  state.lastUplinkFCnt = v.fcnt;
  if (v.kind === "retransmission") {
    // Stored by this process, or by one before it (the registry's counter is reported only for stored frames).
    const ack =
      v.frame.confirmed &&
      (await storedInTime(ctx, state, state.lastStored ?? Promise.resolve(true), heard.firstHeardAt));
    if (ack) await answerUplink(ctx, state, heard.copies, heard.firstHeardAt, true, false);
    return;
  }
  session.fcntUp = v.nextFCntUp;
  if (v.reset) {
    session.fcntDown = 0;
    if (session.v11) session.v11.nFCntDown = session.v11.aFCntDown = 0;
  }
  state.dirty = true;
  state.uplinks++;
  ctx.stats.uplinks++;
  const best = heard.best;
  state.lastHeard = { gatewayEui: best.gatewayEui, rx: best.rx, station: best.station };
  noteClassBUplink(state, v.frame.classB, heard.copies);
  const dr = uplinkDataRate(state.region, best.rx);
  const datr = typeof best.rx.datr === "string" ? parseLoraDatr(best.rx.datr) : undefined;
  const sf = datr?.ok ? datr.value.sf : undefined;
  if (best.rx.lsnr !== undefined) state.snrHistory = [...state.snrHistory, best.rx.lsnr].slice(-ADR_HISTORY);

  if (state.awaitingAck) {
    const item = state.awaitingAck;
    state.awaitingAck = undefined;
    item.settle(
      v.frame.ack
        ? { status: "DELIVERED" }
        : { status: "FAILED", message: "the device's next uplink did not acknowledge it" },
    );
  }
  const status = handleMacCommands(
    state,
    v.macCommands,
    { snr: best.rx.lsnr ?? 0, sf, gateways: heard.copies.length, gpsMs: receptionGpsMs(heard) },
    ctx.log,
  );
  if (v.frame.adr && dr.ok) considerAdr(state, dr.value, sf);
  if (ctx.devStatusEvery > 0 && state.uplinks % ctx.devStatusEvery === 1 % ctx.devStatusEvery)
    state.macOut.push({ type: "DevStatusReq" });

  const stored =
    v.frame.fPort !== null && v.frame.fPort > 0
      ? store(
          ctx,
          state,
          v.fcnt,
          publish(ctx, state, `up/${v.frame.fPort}`, v.payload, uplinkMetadata(heard, v, dr.ok ? dr.value : undefined)),
        )
      : Promise.resolve(true);
  state.lastStored = stored;
  if (status) void publish(ctx, state, DEVICE_STATUS_TOPIC, Buffer.from(JSON.stringify(status)));
  const ack = v.frame.confirmed && (await storedInTime(ctx, state, stored, heard.firstHeardAt));
  await answerUplink(ctx, state, heard.copies, heard.firstHeardAt, ack, v.frame.adrAckReq);
  // Commands still queued go out in the ping slots of a device that listens in them.
  if (state.classBOn) void sendClassB(ctx, state);
}
