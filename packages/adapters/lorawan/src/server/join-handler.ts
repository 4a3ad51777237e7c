import { randomInt } from "node:crypto";
import { allocateDevAddr } from "../codec/dev-addr.js";
import {
  buildJoinAccept,
  deriveSessionKeys,
  parseJoinRequest,
  rememberDevNonce,
  verifyJoinRequest,
} from "../codec/join.js";
import { toHex } from "../codec/hex.js";
import { sendInWindows } from "./downlinks.js";
import type { DeviceState, NetworkSession } from "./device-state.js";
import { handleJoin11 } from "./join-handler11.js";
import { indexDevAddr, loadDevice, type Heard, type ServerContext } from "./server-context.js";

/** Draws of a DevAddr the registry may find taken (by a device another adapter joined) before the join is dropped. */
const DEV_ADDR_ATTEMPTS = 4;

/**
 * An OTAA JoinRequest (LoRaWAN 1.0.2 §6.2): accepted only for a known OTAA device with that DevEUI, its AppEUI,
 * `canJoin` and a MIC valid under its AppKey, with a DevNonce it never used. A fresh DevAddr is drawn, the session
 * is recorded by the registry (LoraActivate) before the JoinAccept goes out in RX1 (or RX2) through the gateway
 * that heard the device best. Refusals are logged and counted; the device hears nothing.
 */
export async function handleJoin(ctx: ServerContext, heard: Heard): Promise<void> {
  const req = parseJoinRequest(heard.phyPayload);
  if (!req.ok) {
    ctx.stats.badFrames++;
    return;
  }
  const { devEui, appEui, devNonce } = req.value;
  const refuse = (reason: string, extra: object = {}) => {
    ctx.stats.joinsRefused++;
    ctx.log.warn({ devEui, ...extra, reason }, "join refused");
  };
  const state = ctx.byDevEui.get(devEui) ?? (await loadDevice(ctx, { devEui }, heard.best.gatewayLease.clientIp));
  if (!state) return refuse("unknown DevEUI");
  const lora = state.lora;
  if (lora.activation !== "otaa") return refuse("device is ABP", { deviceId: state.deviceId });
  if (lora.appEui.toLowerCase() !== appEui) return refuse(`AppEUI ${appEui} is not the device's`);
  if (!lora.canJoin) return refuse("canJoin is 0", { deviceId: state.deviceId });
  if (lora.macVersion === "1.1") return handleJoin11(ctx, heard, state, req.value, refuse);
  const appKey = Buffer.from(lora.appKey, "hex");
  const verified = verifyJoinRequest(heard.phyPayload, appKey);
  if (!verified.ok) return refuse(verified.reason, { deviceId: state.deviceId });
  const nonces = rememberDevNonce(state.usedDevNonces, devNonce);
  if (!nonces.ok) return refuse(nonces.reason, { deviceId: state.deviceId });

  let session: { devAddr: string; nwkSKey: Buffer; appSKey: Buffer; appNonce: number } | undefined;
  for (let attempt = 0; attempt < DEV_ADDR_ATTEMPTS && !session; attempt++) {
    const devAddr = await allocateDevAddr({ netId: ctx.netId, isTaken: (a) => ctx.byDevAddr.has(a) });
    if (!devAddr.ok) return refuse(devAddr.reason);
    const appNonce = randomInt(0, 0x1000000);
    const keys = deriveSessionKeys(appKey, { appNonce, netId: ctx.netId, devNonce });
    if (!keys.ok) return refuse(keys.reason);
    const activated = await ctx.registry.loraActivate(state.deviceIntId, devNonce, {
      devAddr: devAddr.value,
      nwkSKey: toHex(keys.value.nwkSKey),
      appSKey: toHex(keys.value.appSKey),
    });
    if (activated.result === "DEV_ADDR_TAKEN") continue;
    if (activated.result !== "OK") return refuse(`registry: ${activated.result} ${activated.message}`);
    session = { devAddr: devAddr.value, ...keys.value, appNonce };
  }
  if (!session) return refuse("no free DevAddr");

  const accept = buildJoinAccept(
    {
      appNonce: session.appNonce,
      netId: ctx.netId,
      devAddr: session.devAddr,
      rx1DrOffset: 0,
      rx2DataRate: state.region.rx2.dataRate,
      rxDelay: state.region.receiveDelay1,
      ...(state.region.defaultCfList ? { cfList: state.region.defaultCfList } : {}),
    },
    appKey,
  );
  if (!accept.ok) return refuse(accept.reason);
  const fcntCheck = state.session?.fcntCheck ?? (([0, 1, 2, 3].includes(lora.fcntCheck) ? lora.fcntCheck : 0) as 0);
  const started = { devAddr: session.devAddr, nwkSKey: session.nwkSKey, appSKey: session.appSKey };
  await startSession(ctx, state, heard, { ...started, fcntUp: 0, fcntDown: 0, fcntCheck }, nonces.value, accept.value);
}

/**
 * Makes a join's session the device's (counters at 0, pending MAC state and unacknowledged downlink dropped,
 * indexed by its DevAddr), then sends the JoinAccept in the join windows through the best gateway.
 */
export async function startSession(
  ctx: ServerContext,
  state: DeviceState,
  heard: Heard,
  session: NetworkSession,
  usedDevNonces: number[],
  accept: Buffer,
): Promise<void> {
  const previous = state.session?.devAddr;
  state.session = session;
  state.usedDevNonces = usedDevNonces;
  state.awaitingAck?.settle({ status: "FAILED", message: "the device joined again before acknowledging it" });
  state.awaitingAck = undefined;
  state.macOut = [];
  state.snrHistory = [];
  state.adrPending = false;
  state.uplinks = 0;
  indexDevAddr(ctx, state, previous);
  state.lease.touch();
  ctx.stats.joins++;
  const devEui = state.lora.devEui.toLowerCase();
  const sent = await sendInWindows(ctx, state.region, heard.copies, heard.firstHeardAt, accept, "join", devEui);
  ctx.log.info(
    { deviceId: state.deviceId, devEui, devAddr: session.devAddr, sent: sent.ok ? sent.window : sent.reason },
    session.v11 ? "device joined (LoRaWAN 1.1)" : "device joined",
  );
}
