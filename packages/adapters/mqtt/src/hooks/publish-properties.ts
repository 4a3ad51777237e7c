import { ReasonCode } from "../reason-codes.js";

/** Properties a client's PUBLISH may carry (MQTT 5.0 §3.3.2.3; the Subscription Identifier only goes to clients). */
const PUBLISH_PROPERTIES = new Set([
  "payloadFormatIndicator",
  "messageExpiryInterval",
  "topicAlias",
  "responseTopic",
  "correlationData",
  "userProperties",
  "contentType",
]);

/** Why a PUBLISH's properties are refused, with the DISCONNECT reason code the standard gives for it. */
interface PropertiesProblem {
  readonly code: number;
  readonly reason: string;
}

/**
 * Checks the properties of an MQTT 5.0 device's PUBLISH as mqtt-packet decoded them: it reads any property in any
 * packet and makes a repeated one an array, and aedes checks neither. A property not valid in PUBLISH makes it a
 * Malformed Packet (MQTT 5.0 §2.2.2.2: 0x81); a Subscription Identifier from a client (MQTT-3.3.4-6) or a property
 * other than a User Property given twice (§3.3.2.3) a Protocol Error (0x82). A PUBLISH off the wire has passed the
 * same checks on its bytes already (codec/inbound-checker.ts, before aedes reads it); what reaches this is mainly a
 * will, whose properties come from CONNECT (its Will Delay Interval taken out by will-delay.ts).
 */
export function publishPropertiesProblem(properties: object | undefined): PropertiesProblem | undefined {
  if (!properties) return undefined;
  for (const [name, value] of Object.entries(properties)) {
    if (value === undefined) continue;
    if (name === "subscriptionIdentifier")
      return { code: ReasonCode.PROTOCOL_ERROR, reason: "a client's PUBLISH must not carry a subscription identifier" };
    if (!PUBLISH_PROPERTIES.has(name))
      return { code: ReasonCode.MALFORMED_PACKET, reason: `property ${name} is not valid in PUBLISH` };
    if (name !== "userProperties" && Array.isArray(value))
      return { code: ReasonCode.PROTOCOL_ERROR, reason: `property ${name} is included more than once` };
  }
  return undefined;
}
