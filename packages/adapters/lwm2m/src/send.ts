import { CODES, type CoapReply, type CoapRequest } from "@iot/adapter-coap";
import type { Logger } from "pino";
import type { ClientRegistration } from "./client-registration.js";
import { decodeCompositeContent, isCompositeFormat } from "./composite/senml-paths.js";

/** The Uri-Path of the Send operation. */
export const DP = "dp";

/** Topic of the values a client sends (the Send operation), relative to the device's mountpoint. */
export const SEND_TOPIC = "up/send";

/** Unsupported Content-Format (RFC 7252 §5.9.2.9). */
const UNSUPPORTED_FORMAT = "4.15";

/**
 * The Send operation (LwM2M Core V1_1 §6.4.3, `POST /dp`): a registered client reports values on its own, as SenML
 * JSON or SenML CBOR (or, from a 1.2 client, LwM2M CBOR) with full paths. They become one uplink on `up/send`,
 * `{msgType: "send", data: {content}}` (the shape of a notification, so the registry decodes them into data point
 * values), and the client gets 2.04 once the registry has stored it (5.03 when it could not). `registration` is the
 * client's registration found by its address (undefined: 4.04, the client must register first); `fromOther` says
 * the request came over another transport or DTLS identity than the registration (4.03).
 */
export async function handleSend(
  request: CoapRequest,
  registration: ClientRegistration | undefined,
  fromOther: boolean,
  log: Logger,
): Promise<CoapReply> {
  if (request.method !== "POST" || request.path.length !== 1) return { code: CODES.methodNotAllowed };
  if (fromOther) return { code: CODES.forbidden };
  if (!registration || registration.ended) return { code: CODES.notFound };
  if (!isCompositeFormat(request.contentFormat))
    return { code: UNSUPPORTED_FORMAT, payload: "Send takes SenML JSON (110), SenML CBOR (112) or LwM2M CBOR (11544)" };
  const content = decodeCompositeContent(request.contentFormat, request.payload, Math.floor(Date.now() / 1000));
  if (!content.ok) {
    log.info({ deviceId: registration.deviceId, reason: content.reason }, "send refused");
    return { code: CODES.badRequest, payload: content.reason };
  }
  const uplink = Buffer.from(JSON.stringify({ msgType: "send", data: { content: content.value } }));
  try {
    const refused = await registration.lease.publish(SEND_TOPIC, uplink, 1);
    if (refused) {
      log.warn({ deviceId: registration.deviceId, reason: refused.message }, "send uplink refused");
      return { code: CODES.forbidden };
    }
  } catch (err) {
    log.warn({ deviceId: registration.deviceId, err: (err as Error).message }, "send uplink not stored");
    return { code: CODES.unavailable };
  }
  return { code: CODES.changed };
}
