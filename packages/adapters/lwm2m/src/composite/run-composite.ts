import type { ClientRequest, ClientResponse } from "@iot/adapter-coap";
import type { DownlinkOutcome } from "@iot/adapter-core";
import type { ClientRegistration } from "../client-registration.js";
import { CONTENT_FORMAT } from "../codec/content-format.js";
import { codeMessage, isSuccess } from "../code-message.js";
import { requestPath } from "../command-request.js";
import { NOTIFY_TOPIC, RESP_TOPIC, outcomeOf, type AnswerData } from "../response-uplink.js";
import { failureOf, type ServerContext } from "../server-context.js";
import type { ReqId } from "../command.js";
import type { CompositeCommand, CompositeMsgType } from "./composite-command.js";
import {
  decodeCompositeContent,
  encodeCompositePaths,
  encodeCompositeWrite,
  isCompositeFormat,
} from "./senml-paths.js";

/**
 * The format of a client's composite operations: the one the server prefers for it when that can carry composite
 * payloads (SenML JSON or CBOR, LwM2M CBOR for 1.2 or a client announcing it), else SenML JSON.
 */
const compositeFormat = (preferred: number) => (isCompositeFormat(preferred) ? preferred : CONTENT_FORMAT.senmlJson);

/** The key of a composite observation among a registration's observations: `composite:` and its sorted paths. */
const compositeKey = (paths: readonly string[]) => `composite:${paths.join(",")}`;

/** The `data` of an answer to a composite request: the SenML payload decoded with full paths. */
function compositeData(response: ClientResponse, asked: number): AnswerData {
  const base = { code: response.code, codeMsg: codeMessage(response.code) };
  if (response.payload.length === 0 || !isSuccess(response.code)) return base;
  const content = decodeCompositeContent(
    response.contentFormat ?? asked,
    response.payload,
    Math.floor(Date.now() / 1000),
  );
  return content.ok ? { ...base, content: content.value } : { ...base, contentError: content.reason };
}

/**
 * Carries out a composite command on a 1.1 client (Core V1_1 §8.2.5): Read-Composite is a FETCH on the root with
 * the paths as SenML names (or LwM2M CBOR paths), Write-Composite an iPATCH with SenML records (or LwM2M CBOR
 * values), Observe-Composite a FETCH with Observe 0 (its notifications on `up/notify`), its cancel the same FETCH
 * with Observe 1 and the observation's token. Answers go to `up/resp`. A 1.0 client has none of them: the command
 * fails and nothing is sent.
 */
export async function runComposite(
  ctx: ServerContext,
  registration: ClientRegistration,
  command: CompositeCommand,
  preferred: number,
): Promise<DownlinkOutcome> {
  if (registration.version === "1.0")
    return { status: "FAILED", message: `${command.msgType} is LwM2M 1.1; the client registered with 1.0` };
  const format = compositeFormat(preferred);
  const root = requestPath(registration.objects.rootPath, "/").filter((s) => s !== "");
  const publishAnswer = (data: AnswerData) =>
    ctx.publish(registration, RESP_TOPIC, { reqID: command.reqID, msgType: command.msgType, data });
  if (command.msgType === "cancel-observe-composite") {
    const key = compositeKey(command.paths);
    const held = registration.observations.get(key);
    if (!held) return { status: "FAILED", message: `no composite observation of ${command.paths.join(", ")} is held` };
    registration.observations.delete(key);
    try {
      const response = await held.observation.cancel();
      await publishAnswer(compositeData(response, format));
      return outcomeOf(response.code);
    } catch (err) {
      return failureOf(err);
    }
  }
  const payload =
    command.msgType === "write-composite"
      ? encodeCompositeWrite(format, command.values)
      : encodeCompositePaths(format, command.paths);
  if (!payload.ok) return { status: "FAILED", message: payload.reason };
  const request: ClientRequest =
    command.msgType === "write-composite"
      ? { method: "iPATCH", path: root, payload: payload.value, contentFormat: format }
      : { method: "FETCH", path: root, payload: payload.value, contentFormat: format, accept: format };
  if (command.msgType === "observe-composite") return observeComposite(ctx, registration, command, request, format);
  try {
    const response = await registration.layer.request(registration.peer, request);
    await publishAnswer(compositeData(response, format));
    return outcomeOf(response.code);
  } catch (err) {
    return failureOf(err);
  }
}

async function observeComposite(
  ctx: ServerContext,
  registration: ClientRegistration,
  command: { readonly reqID: ReqId; readonly msgType: CompositeMsgType; readonly paths: readonly string[] },
  request: ClientRequest,
  format: number,
): Promise<DownlinkOutcome> {
  const key = compositeKey(command.paths);
  registration.observations.get(key)?.observation.forget();
  registration.observations.delete(key);
  let observation;
  try {
    observation = await registration.layer.observe(registration.peer, { ...request, observe: 0 }, (notification) =>
      ctx.publish(registration, NOTIFY_TOPIC, {
        reqID: command.reqID,
        msgType: "notify",
        data: compositeData(notification, format),
      }),
    );
  } catch (err) {
    return failureOf(err);
  }
  if (registration.ended) observation.forget();
  else if (observation.active) registration.observations.set(key, { reqID: command.reqID, observation, format });
  await ctx.publish(registration, RESP_TOPIC, {
    reqID: command.reqID,
    msgType: command.msgType,
    data: compositeData(observation.response, format),
  });
  return outcomeOf(observation.response.code);
}
