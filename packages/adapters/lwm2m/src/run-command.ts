import type { ClientResponse } from "@iot/adapter-coap";
import type { Downlink, DownlinkOutcome } from "@iot/adapter-core";
import type { ClientRegistration } from "./client-registration.js";
import { CONTENT_FORMAT } from "./codec/content-format.js";
import { parseCommand } from "./command.js";
import { parseCompositeCommand } from "./composite/composite-command.js";
import { runComposite } from "./composite/run-composite.js";
import { commandRequest } from "./command-request.js";
import { cancelObservation, observePath } from "./observe-path.js";
import { preferredFormat } from "./preferred-format.js";
import { RESP_TOPIC, answerData, outcomeOf } from "./response-uplink.js";
import { failureOf, type ServerContext } from "./server-context.js";
import { isFirmwareCommand } from "./firmware/firmware-command.js";
import { runFirmwareUpdate, type FirmwareHooks } from "./firmware/run-firmware.js";

/**
 * Carries out one registry downlink on a registered client: parses the JSON command, sends its CoAP request, and
 * answers the client's response as an `up/resp` uplink and the command's outcome (DELIVERED on 2.xx, FAILED with
 * the code, `timeout`, or the reason a malformed command was refused — then nothing is sent). A Read of a resource
 * that the client will not give in the preferred format (4.06 Not Acceptable) is asked again as plain text.
 */
export async function runCommand(
  ctx: ServerContext,
  registration: ClientRegistration,
  downlink: Downlink,
  firmware?: FirmwareHooks,
): Promise<DownlinkOutcome> {
  if (firmware && isFirmwareCommand(downlink.payload))
    return runFirmwareUpdate(ctx, registration, downlink.payload, firmware);
  const composite = parseCompositeCommand(downlink.payload);
  if (composite && !composite.ok) {
    ctx.log.info({ deviceId: registration.deviceId, reason: composite.reason }, "command refused");
    return { status: "FAILED", message: composite.reason };
  }
  const preferred = preferredFormat(registration.version, registration.objects.contentFormats);
  if (composite) return runComposite(ctx, registration, composite.value, preferred);
  const parsed = parseCommand(downlink.payload);
  if (!parsed.ok) {
    ctx.log.info({ deviceId: registration.deviceId, reason: parsed.reason }, "command refused");
    return { status: "FAILED", message: parsed.reason };
  }
  const command = parsed.value;
  const format = preferred;
  if (command.msgType === "observe") return observePath(ctx, registration, command.path, command.reqID, format);
  if (command.msgType === "cancel-observe")
    return cancelObservation(ctx, registration, command.path, command.reqID, format);
  const request = commandRequest(command, registration.objects.rootPath, format);
  if (!request.ok) {
    ctx.log.info({ deviceId: registration.deviceId, reason: request.reason }, "command refused");
    return { status: "FAILED", message: request.reason };
  }
  let response: ClientResponse;
  let asked = command.msgType === "discover" ? CONTENT_FORMAT.linkFormat : format;
  try {
    response = await registration.layer.request(registration.peer, request.value);
    const resource = command.path.split("/").length > 3;
    if (command.msgType === "read" && response.code === "4.06" && resource) {
      asked = CONTENT_FORMAT.text;
      response = await registration.layer.request(registration.peer, { ...request.value, accept: asked });
    }
  } catch (err) {
    return failureOf(err);
  }
  const data = answerData(response, command.path, asked, Math.floor(Date.now() / 1000));
  await ctx.publish(registration, RESP_TOPIC, { reqID: command.reqID, msgType: command.msgType, data });
  return outcomeOf(response.code);
}
