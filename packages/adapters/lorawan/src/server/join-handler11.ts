// A LoRaWAN 1.1 OTAA join (1.1 §6.2): the JoinRequest's MIC under the NwkKey, its DevNonce above the last one
// (a counter in 1.1), a JoinNonce above every one sent to the device before, the four session keys (the network's
// three from the NwkKey, the AppSKey from the AppKey), the session recorded by the registry (which checks both
// nonces again) before the JoinAccept goes out with OptNeg set and the MIC under the JSIntKey.
import { allocateDevAddr } from "../codec/dev-addr.js";
import { toHex } from "../codec/hex.js";
import { verifyJoinRequest, type JoinRequest } from "../codec/join.js";
import { buildJoinAccept11 } from "../codec/lorawan11-join-accept.js";
import { acceptDevNonce11 } from "../codec/lorawan11-join.js";
import { deriveJoinServerKeys, deriveSessionKeys11 } from "../codec/lorawan11-keys.js";
import { JOIN_REQ_TYPE_JOIN } from "../codec/lorawan11-mic.js";
import type { DeviceState } from "./device-state.js";
import { startSession } from "./join-handler.js";
import { session11Info, type Session11 } from "./lorawan11.js";
import type { Heard, ServerContext } from "./server-context.js";

/** Draws of a DevAddr the registry may find taken before the join is dropped. */
const DEV_ADDR_ATTEMPTS = 4;

/** Handles the JoinRequest of a device whose record says macVersion 1.1 (checked for OTAA, AppEUI and canJoin). */
export async function handleJoin11(
  ctx: ServerContext,
  heard: Heard,
  state: DeviceState,
  req: JoinRequest,
  refuse: (reason: string, extra?: object) => void,
): Promise<void> {
  const lora = state.lora;
  const deviceId = state.deviceId;
  const nwkKey = Buffer.from(lora.nwkKey ?? "", "hex");
  const appKey = Buffer.from(lora.appKey, "hex");
  if (nwkKey.length !== 16 || appKey.length !== 16)
    return refuse("the 1.1 device's NwkKey and AppKey must be 16 bytes");
  const verified = verifyJoinRequest(heard.phyPayload, nwkKey);
  if (!verified.ok) return refuse(`${verified.reason} (NwkKey)`, { deviceId });
  const devNonce = acceptDevNonce11(state.usedDevNonces.at(-1), req.devNonce);
  if (!devNonce.ok) return refuse(devNonce.reason, { deviceId });
  const js = deriveJoinServerKeys(nwkKey, req.devEui);
  if (!js.ok) return refuse(js.reason, { deviceId });

  let joined: { devAddr: string; v11: Session11; appSKey: Buffer } | undefined;
  for (let attempt = 0; attempt < DEV_ADDR_ATTEMPTS && !joined; attempt++) {
    const joinNonce = state.nextJoinNonce;
    if (joinNonce > 0xffffff) return refuse("the 24-bit JoinNonce is used up: the device needs new root keys");
    const devAddr = await allocateDevAddr({ netId: ctx.netId, isTaken: (a) => ctx.byDevAddr.has(a) });
    if (!devAddr.ok) return refuse(devAddr.reason);
    const keys = deriveSessionKeys11(appKey, nwkKey, { joinNonce, joinEui: req.appEui, devNonce: req.devNonce });
    if (!keys.ok) return refuse(keys.reason);
    const v11: Session11 = { keys: keys.value, nFCntDown: 0, aFCntDown: 0, joinNonce };
    const activated = await ctx.registry.loraActivate(state.deviceIntId, req.devNonce, {
      devAddr: devAddr.value,
      nwkSKey: toHex(keys.value.fNwkSIntKey),
      appSKey: toHex(keys.value.appSKey),
      lorawan11: session11Info(v11),
    });
    if (activated.result === "DEV_ADDR_TAKEN") continue;
    if (activated.result !== "OK") return refuse(`registry: ${activated.result} ${activated.message}`, { deviceId });
    state.nextJoinNonce = joinNonce + 1;
    joined = { devAddr: devAddr.value, v11, appSKey: keys.value.appSKey };
  }
  if (!joined) return refuse("no free DevAddr");

  const accept = buildJoinAccept11(
    {
      appNonce: joined.v11.joinNonce,
      netId: ctx.netId,
      devAddr: joined.devAddr,
      rx1DrOffset: 0,
      rx2DataRate: state.region.rx2.dataRate,
      rxDelay: state.region.receiveDelay1,
      ...(state.region.defaultCfList ? { cfList: state.region.defaultCfList } : {}),
    },
    { joinReqType: JOIN_REQ_TYPE_JOIN, joinEui: req.appEui, devNonce: req.devNonce },
    js.value.jsIntKey,
    nwkKey,
  );
  if (!accept.ok) return refuse(accept.reason);
  const fcntCheck = state.session?.fcntCheck ?? (([0, 1, 2, 3].includes(lora.fcntCheck) ? lora.fcntCheck : 0) as 0);
  const session = {
    devAddr: joined.devAddr,
    nwkSKey: joined.v11.keys.fNwkSIntKey,
    appSKey: joined.appSKey,
    fcntUp: 0,
    fcntDown: 0,
    fcntCheck,
    v11: joined.v11,
  };
  state.confirmedDownFCnt = 0;
  await startSession(ctx, state, heard, session, [...state.usedDevNonces, devNonce.value].slice(-100), accept.value);
}
