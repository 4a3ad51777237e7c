import { parseLoraDatr } from "../codec/radio-packet.js";
import { uplinkDataRate } from "../codec/region.js";
import { parseDataFrame, verifyUplink, type AcceptedUplink } from "../codec/uplink.js";
import type { DeviceState, NetworkSession } from "./device-state.js";
import { answerUplink } from "./downlinks.js";
import { ADR_HISTORY, considerAdr, handleMacCommands } from "./mac-handler.js";
import { loadDevice, type Heard, type ServerContext } from "./server-context.js";

/** Topic of the device status (battery, margin) a DevStatusAns reports, kept as an event of the device. */
export const DEVICE_STATUS_TOPIC = "lora/status";

/** The radio metadata kept with an uplink event (JSON): the frame's counters and every gateway that heard it. */
export function uplinkMetadata(heard: Heard, accepted: AcceptedUplink<NetworkSession>, dr: number | undefined) {
  const rx = heard.best.rx;
  return {
    devAddr: accepted.frame.devAddr,
    fCnt: accepted.fcnt,
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

async function publish(ctx: ServerContext, state: DeviceState, topic: string, payload: Buffer, metadata?: object) {
  try {
    const refusal = await state.lease.publish(topic, payload, 0, metadata ? JSON.stringify(metadata) : undefined);
    if (refusal) ctx.log.warn({ deviceId: state.deviceId, topic, reason: refusal.message }, "uplink dropped");
  } catch (err) {
    ctx.log.warn({ deviceId: state.deviceId, topic, err: (err as Error).message }, "uplink not stored");
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
  const verdict = verifyUplink(heard.phyPayload, () => [session]);
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
  if (v.kind === "retransmission") {
    if (v.frame.confirmed) await answerUplink(ctx, state, heard.copies, heard.firstHeardAt, true, false);
    return;
  }
  session.fcntUp = v.nextFCntUp;
  if (v.reset) session.fcntDown = 0;
  state.dirty = true;
  state.uplinks++;
  ctx.stats.uplinks++;
  const best = heard.best;
  state.lastHeard = { gatewayEui: best.gatewayEui, rx: best.rx };
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
    { snr: best.rx.lsnr ?? 0, sf, gateways: heard.copies.length },
    ctx.log,
  );
  if (v.frame.adr && dr.ok) considerAdr(state, dr.value, sf);
  if (ctx.devStatusEvery > 0 && state.uplinks % ctx.devStatusEvery === 1 % ctx.devStatusEvery)
    state.macOut.push({ type: "DevStatusReq" });

  if (v.frame.fPort !== null && v.frame.fPort > 0)
    void publish(ctx, state, `up/${v.frame.fPort}`, v.payload, uplinkMetadata(heard, v, dr.ok ? dr.value : undefined));
  if (status) void publish(ctx, state, DEVICE_STATUS_TOPIC, Buffer.from(JSON.stringify(status)));
  await answerUplink(ctx, state, heard.copies, heard.firstHeardAt, v.frame.confirmed, v.frame.adrAckReq);
}
