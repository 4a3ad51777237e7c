import type { ClientRequest } from "@iot/adapter-coap";
import type { DownlinkOutcome } from "@iot/adapter-core";
import type { ClientRegistration } from "./client-registration.js";
import type { ReqId } from "./command.js";
import { requestPath } from "./command-request.js";
import { NOTIFY_TOPIC, RESP_TOPIC, answerData, outcomeOf } from "./response-uplink.js";
import { failureOf, type ServerContext } from "./server-context.js";

/** The reqID of observations autoSub makes: their notifications carry it. */
const AUTO_SUB_REQ_ID = "autoSub";

/**
 * Observes `path` on the client (Information Reporting, OMA-TS-LightweightM2M-V1_0 §5.5.1: GET with Observe 0).
 * Each notification becomes an `up/notify` uplink `{reqID, msgType: "notify", data}`. The first answer goes to
 * `up/resp` for an observe command, or to `up/notify` too for autoSub (its current values are the first report).
 * A new observation of a path replaces the one held.
 */
export async function observePath(
  ctx: ServerContext,
  registration: ClientRegistration,
  path: string,
  reqID: ReqId,
  format: number,
  /** Observed again after a restart: its first answer goes to `up/notify` as a notification. */
  restored = false,
): Promise<DownlinkOutcome> {
  registration.observations.get(path)?.observation.forget();
  registration.observations.delete(path);
  const request: ClientRequest = {
    method: "GET",
    path: requestPath(registration.objects.rootPath, path),
    accept: format,
    observe: 0,
  };
  const now = () => Math.floor(Date.now() / 1000);
  let observation;
  try {
    observation = await registration.layer.observe(registration.peer, request, (notification) =>
      ctx.publish(registration, NOTIFY_TOPIC, {
        reqID,
        msgType: "notify",
        data: answerData(notification, path, format, now()),
      }),
    );
  } catch (err) {
    return failureOf(err);
  }
  if (registration.ended) observation.forget();
  else if (observation.active) registration.observations.set(path, { reqID, observation, format });
  const data = answerData(observation.response, path, format, now());
  if (reqID === AUTO_SUB_REQ_ID || restored)
    await ctx.publish(registration, NOTIFY_TOPIC, { reqID, msgType: "notify", data });
  else await ctx.publish(registration, RESP_TOPIC, { reqID, msgType: "observe", data });
  return outcomeOf(observation.response.code);
}

/**
 * Cancels the observation of `path` (RFC 7641 §3.6: GET with Observe 1 and its token); the client's answer goes to
 * `up/resp`. With no observation of that path held, the command fails and nothing is sent.
 */
export async function cancelObservation(
  ctx: ServerContext,
  registration: ClientRegistration,
  path: string,
  reqID: ReqId,
  format: number,
): Promise<DownlinkOutcome> {
  const held = registration.observations.get(path);
  if (!held) return { status: "FAILED", message: `no observation of ${path} is held` };
  registration.observations.delete(path);
  try {
    const response = await held.observation.cancel();
    const data = answerData(response, path, format, Math.floor(Date.now() / 1000));
    await ctx.publish(registration, RESP_TOPIC, { reqID, msgType: "cancel-observe", data });
    return outcomeOf(response.code);
  } catch (err) {
    return failureOf(err);
  }
}

/**
 * autoSub (the device's `autoSub` 1): observes every object instance the client registered, except Security (0)
 * and Server (1), which hold the server's own settings; instances already observed are left alone.
 */
export async function autoSubscribe(ctx: ServerContext, registration: ClientRegistration, format: number) {
  const paths = registration.objects.objects
    .filter((o) => o.objectId > 1)
    .flatMap((o) => o.instances.map((i) => `/${o.objectId}/${i}`))
    .filter((p) => !registration.observations.has(p));
  for (const path of paths) {
    if (registration.ended) return;
    const outcome = await observePath(ctx, registration, path, AUTO_SUB_REQ_ID, format);
    if (outcome.status === "FAILED")
      ctx.log.info({ deviceId: registration.deviceId, path, reason: outcome.message }, "autoSub observation refused");
  }
}
