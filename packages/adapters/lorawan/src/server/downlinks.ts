import type { Downlink, DownlinkOutcome } from "@iot/adapter-core";
import { planDownlink, type Region } from "../codec/region.js";
import { ok, refuse, type Result } from "../codec/result.js";
import type { DeviceState } from "./device-state.js";
import { MAC_TOPIC, macCommandPayload } from "./mac-topic.js";
import type { Copy, ServerContext } from "./server-context.js";
import { sendClassB } from "./class-b.js";
import { nextFrame, sent } from "./downlink-frames.js";

/** Largest application payload of a downlink at any data rate, bytes. */
const MAX_DOWNLINK_PAYLOAD = 242;

/**
 * The FPort and confirmation a command's topic asks for: `dn/<FPort>` (1..223) unconfirmed, `dn/<FPort>/confirmed`
 * confirmed; the device's default downlink topic (no topic given) is FPort 1 unconfirmed.
 */
export function downlinkTopic(topic: string, defaultTopic: string): Result<{ fPort: number; confirmed: boolean }> {
  if (topic === "" || topic === defaultTopic) return ok({ fPort: 1, confirmed: false });
  const m = /^dn\/(\d{1,3})(\/confirmed)?$/.exec(topic);
  const fPort = m ? Number(m[1]) : NaN;
  if (!m || fPort < 1 || fPort > 223)
    return refuse(`topic "${topic}" must be dn/<FPort> or dn/<FPort>/confirmed with FPort 1..223`);
  return ok({ fPort, confirmed: m[2] !== undefined });
}

/** A command's payload bytes: as sent, or decoded from hex when written `hex:<digits>`. */
export function downlinkPayload(payload: Uint8Array): Result<Buffer> {
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (bytes.subarray(0, 4).toString("latin1") !== "hex:") return ok(Buffer.from(bytes));
  const hex = bytes.subarray(4).toString("latin1").trim();
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) return refuse("a hex: payload must be an even number of hex digits");
  return ok(Buffer.from(hex, "hex"));
}

/** The consumer given to the device's lease: queues each command for the next receive window (class C: sends it). */
export function downlinkConsumer(ctx: ServerContext, state: DeviceState) {
  return (downlink: Downlink, topic: string): Promise<DownlinkOutcome> =>
    new Promise((settle) => {
      if (topic === MAC_TOPIC) {
        const mac = macCommandPayload(downlink.payload, state.lora.macVersion);
        if (!mac.ok) return settle({ status: "FAILED", message: mac.reason });
        state.queue.push({ id: downlink.id, fPort: 0, confirmed: false, payload: mac.value, settle });
        wake(ctx, state);
        return;
      }
      const t = downlinkTopic(topic, state.lease.session.device.defaultDownlinkTopic);
      if (!t.ok) return settle({ status: "FAILED", message: t.reason });
      const payload = downlinkPayload(downlink.payload);
      if (!payload.ok) return settle({ status: "FAILED", message: payload.reason });
      if (payload.value.length > MAX_DOWNLINK_PAYLOAD)
        return settle({ status: "FAILED", message: `payload over ${MAX_DOWNLINK_PAYLOAD} bytes` });
      state.queue.push({ id: downlink.id, ...t.value, payload: payload.value, settle });
      wake(ctx, state);
    });
}

/** A command was queued: class C sends it at once, class B in the device's next ping slot; class A waits. */
function wake(ctx: ServerContext, state: DeviceState): void {
  if (state.lora.classC) void sendClassC(ctx, state);
  else if (state.lora.classB) void sendClassB(ctx, state);
}

/** Outcome of trying the receive windows: sent in one, or why not (`tried`: a gateway refused it). */
type WindowOutcome = { ok: true; window: "rx1" | "rx2" } | { ok: false; tried: boolean; reason: string };

/**
 * Sends a PHYPayload answering an uplink in RX1, or in RX2 when RX1 can no longer be met (less than the schedule
 * margin before it opens), does not fit RX1's data rate, or the gateway's TX_ACK refused it; through the copy best
 * placed that has a downlink path.
 */
export async function sendInWindows(
  ctx: ServerContext,
  region: Region,
  copies: readonly Copy[],
  firstHeardAt: number,
  phy: Buffer,
  kind: "join" | "data",
  devEui?: string,
): Promise<WindowOutcome> {
  const delayS = kind === "join" ? region.joinAcceptDelay1 : region.receiveDelay1;
  const copy = copies.find((c) => ctx.link(c.gatewayEui));
  if (!copy) return { ok: false, tried: false, reason: "no gateway that heard it has a downlink path" };
  const link = ctx.link(copy.gatewayEui)!;
  let reason = "too late for RX1 and RX2";
  let tried = false;
  for (const [window, opensS] of [
    ["rx1", delayS],
    ["rx2", delayS + 1],
  ] as const) {
    if (Date.now() - firstHeardAt + ctx.scheduleMarginMs >= opensS * 1000) continue;
    const tx = planDownlink(region, copy.rx, phy, { window, kind });
    if (!tx.ok) {
      reason = tx.reason;
      // RX2 cannot take it (too long for its data rate): waiting for another uplink would not help.
      if (window === "rx2") tried = true;
      continue;
    }
    const rx2 = window === "rx1" ? planDownlink(region, copy.rx, phy, { window: "rx2", kind }) : undefined;
    const sent = await link.transmit({
      region,
      copy,
      window,
      rx1DelayS: delayS,
      tx: tx.value,
      ...(rx2?.ok ? { fallback: rx2.value } : {}),
      ...(devEui ? { devEui } : {}),
    });
    if (sent.ok) {
      ctx.stats.downlinks++;
      return { ok: true, window };
    }
    tried = true;
    reason = `gateway refused the ${window.toUpperCase()} downlink: ${sent.error}`;
    ctx.log.info({ gatewayEui: copy.gatewayEui, error: sent.error, window }, "downlink refused by the gateway");
  }
  return { ok: false, tried, reason };
}

/**
 * Answers an accepted uplink in its receive windows when there is something to say: an ACK of a confirmed uplink,
 * MAC commands, the first queued command, or an answer the device asked for (ADRACKReq). A command that no window
 * could take stays queued; one a gateway refused in both windows fails.
 */
export async function answerUplink(
  ctx: ServerContext,
  state: DeviceState,
  copies: readonly Copy[],
  firstHeardAt: number,
  ack: boolean,
  force: boolean,
): Promise<void> {
  const hasItem = !state.awaitingAck && state.queue.length > 0;
  if (!state.session || (!ack && !force && !hasItem && state.macOut.length === 0)) return;
  const frame = nextFrame(state, ack);
  if (!frame.ok) {
    ctx.log.warn({ deviceId: state.deviceId, reason: frame.reason }, "downlink not built");
    return;
  }
  const { phy, item } = frame.value;
  const devEui = state.lora.devEui || undefined;
  const outcome = await sendInWindows(ctx, state.region, copies, firstHeardAt, phy, "data", devEui);
  if (outcome.ok) return sent(state, item);
  ctx.log.info({ deviceId: state.deviceId, reason: outcome.reason }, "downlink not sent");
  if (!item) return;
  if (outcome.tried) item.settle({ status: "FAILED", message: outcome.reason });
  else state.queue.unshift(item);
}

/** Class C: sends the first queued command at once on RX2 through the gateway that heard the device last. */
async function sendClassC(ctx: ServerContext, state: DeviceState): Promise<void> {
  const heard = state.lastHeard;
  const link = heard && ctx.link(heard.gatewayEui);
  if (!state.session || !heard || !link || state.awaitingAck || state.queue.length === 0) return;
  const frame = nextFrame(state, false);
  if (!frame.ok) return void ctx.log.warn({ deviceId: state.deviceId, reason: frame.reason }, "downlink not built");
  const { phy, item } = frame.value;
  const tx = planDownlink(state.region, heard.rx, phy, { window: "rx2", kind: "data" });
  if (!tx.ok) return item?.settle({ status: "FAILED", message: tx.reason });
  const { tmst: _tmst, ...rest } = tx.value;
  const out = await link.transmit({
    region: state.region,
    copy: heard,
    window: "immediate",
    rx1DelayS: state.region.receiveDelay1,
    tx: { ...rest, imme: true },
    ...(state.lora.devEui ? { devEui: state.lora.devEui } : {}),
  });
  if (!out.ok) return item?.settle({ status: "FAILED", message: `gateway refused the class C downlink: ${out.error}` });
  ctx.stats.downlinks++;
  sent(state, item);
  if (state.queue.length > 0 && !state.awaitingAck) void sendClassC(ctx, state);
}
