// A LoRaWAN 1.1 Rejoin-Request (1.1 §6.2.4.2) from a device whose record says macVersion 1.1. Type 0 and 2 come
// from a device in a session: MIC under its SNwkSIntKey, our NetID, an RJcount0 not below the next expected; type 0
// gets a new DevAddr, type 2 keeps it. Type 1 restores a lost session: MIC under the JSIntKey, the device's JoinEUI,
// an RJcount1 not below the next expected. Each gets new session keys from a fresh JoinNonce (DevNonce: the
// RJcount), recorded by the registry before a JoinAccept with JoinReqType = the rejoin type, under the JSEncKey.
import { allocateDevAddr } from "../codec/dev-addr.js";
import { toHex } from "../codec/hex.js";
import { buildJoinAccept11 } from "../codec/lorawan11-join-accept.js";
import { deriveJoinServerKeys, deriveSessionKeys11 } from "../codec/lorawan11-keys.js";
import { parseRejoinRequest, rejoinMicMatches } from "../codec/lorawan11-rejoin.js";
import { startSession } from "./join-handler.js";
import { session11Info, type Session11 } from "./lorawan11.js";
import { loadDevice, type Heard, type ServerContext } from "./server-context.js";

/** Handles a Rejoin-Request; refusals are logged and counted as refused joins, the device hears nothing. */
export async function handleRejoin(ctx: ServerContext, heard: Heard): Promise<void> {
  const req = parseRejoinRequest(heard.phyPayload);
  if (!req.ok) {
    ctx.stats.badFrames++;
    return;
  }
  const r = req.value;
  const refuse = (reason: string, extra: object = {}) => {
    ctx.stats.joinsRefused++;
    ctx.log.warn({ devEui: r.devEui, rejoinType: r.type, ...extra, reason }, "rejoin refused");
  };
  const devEui = r.devEui;
  const state = ctx.byDevEui.get(devEui) ?? (await loadDevice(ctx, { devEui }, heard.best.gatewayLease.clientIp));
  if (!state) return refuse("unknown DevEUI");
  const lora = state.lora;
  const deviceId = state.deviceId;
  if (lora.macVersion !== "1.1" || lora.activation !== "otaa")
    return refuse("not a LoRaWAN 1.1 OTAA device", { deviceId });
  if (!lora.canJoin) return refuse("canJoin is 0", { deviceId });
  const nwkKey = Buffer.from(lora.nwkKey ?? "", "hex");
  const appKey = Buffer.from(lora.appKey, "hex");
  const js = deriveJoinServerKeys(nwkKey, devEui);
  if (!js.ok || appKey.length !== 16) return refuse("the device's NwkKey and AppKey must be 16 bytes", { deviceId });
  const joinEui = lora.appEui.toLowerCase();
  const current = state.session;
  if (r.type === 1) {
    if (r.joinEui !== joinEui) return refuse(`JoinEUI ${r.joinEui} is not the device's`, { deviceId });
    if (!rejoinMicMatches(heard.phyPayload, js.value.jsIntKey))
      return refuse("MIC does not match the JSIntKey", { deviceId });
    if (r.rjCount < state.nextRjCount1) return refuse(`RJcount1 ${r.rjCount} was used before`, { deviceId });
  } else {
    if (!current?.v11) return refuse("no 1.1 session to rejoin from", { deviceId });
    if (r.netId !== ctx.netId) return refuse(`NetID ${r.netId} is not this network's`, { deviceId });
    if (!rejoinMicMatches(heard.phyPayload, current.v11.keys.sNwkSIntKey))
      return refuse("MIC does not match the SNwkSIntKey", { deviceId });
    if (r.rjCount < state.nextRjCount0) return refuse(`RJcount0 ${r.rjCount} was used before`, { deviceId });
  }

  const joinNonce = state.nextJoinNonce;
  if (joinNonce > 0xffffff) return refuse("the 24-bit JoinNonce is used up", { deviceId });
  const keys = deriveSessionKeys11(appKey, nwkKey, { joinNonce, joinEui, devNonce: r.rjCount });
  if (!keys.ok) return refuse(keys.reason, { deviceId });
  const v11: Session11 = { keys: keys.value, nFCntDown: 0, aFCntDown: 0, joinNonce };
  const keep = r.type === 2 && current ? current.devAddr : undefined;
  let devAddr: string | undefined;
  for (let attempt = 0; attempt < 4 && !devAddr; attempt++) {
    const drawn = keep ?? (await allocateDevAddr({ netId: ctx.netId, isTaken: (a) => ctx.byDevAddr.has(a) }));
    const addr = typeof drawn === "string" ? drawn : drawn.ok ? drawn.value : undefined;
    if (!addr) return refuse("no DevAddr", { deviceId });
    const activated = await ctx.registry.loraActivate(state.deviceIntId, r.rjCount, {
      devAddr: addr,
      nwkSKey: toHex(keys.value.fNwkSIntKey),
      appSKey: toHex(keys.value.appSKey),
      lorawan11: { ...session11Info(v11), rejoin: true },
    });
    if (activated.result === "DEV_ADDR_TAKEN" && !keep) continue;
    if (activated.result !== "OK") return refuse(`registry: ${activated.result} ${activated.message}`, { deviceId });
    devAddr = addr;
  }
  if (!devAddr) return refuse("no free DevAddr", { deviceId });
  state.nextJoinNonce = joinNonce + 1;
  if (r.type === 1) state.nextRjCount1 = r.rjCount + 1;
  state.nextRjCount0 = 0;

  const accept = buildJoinAccept11(
    {
      appNonce: joinNonce,
      netId: ctx.netId,
      devAddr,
      rx1DrOffset: 0,
      rx2DataRate: state.region.rx2.dataRate,
      rxDelay: state.region.receiveDelay1,
      ...(state.region.defaultCfList ? { cfList: state.region.defaultCfList } : {}),
    },
    { joinReqType: r.type, joinEui, devNonce: r.rjCount },
    js.value.jsIntKey,
    js.value.jsEncKey,
  );
  if (!accept.ok) return refuse(accept.reason, { deviceId });
  const fcntCheck = current?.fcntCheck ?? (([0, 1, 2, 3].includes(lora.fcntCheck) ? lora.fcntCheck : 0) as 0);
  const session = { devAddr, nwkSKey: keys.value.fNwkSIntKey, appSKey: keys.value.appSKey, fcntUp: 0, fcntDown: 0 };
  state.confirmedDownFCnt = 0;
  await startSession(ctx, state, heard, { ...session, fcntCheck, v11 }, state.usedDevNonces, accept.value);
}
