/**
 * Most bytes of the PUBLISH properties kept with an MQTT 5.0 uplink, as the JSON text of its metadata. The packet size
 * limit alone allows IOT_MAX_MESSAGE_SIZE + 4 KiB of properties (a few MB with a large limit), and JSON may spell a
 * control character in six bytes: so the stored text is bounded here, as AWS IoT Core bounds a message's user
 * properties (8 KB).
 */
export const MAX_KEPT_PROPERTIES_BYTES = 8192;

/** The PUBLISH properties of an MQTT 5.0 device as mqtt-packet decodes them (a repeated user property an array). */
interface PublishProperties {
  userProperties?: Record<string, string | string[]>;
  contentType?: string;
  payloadFormatIndicator?: boolean;
  responseTopic?: string;
  correlationData?: Buffer;
}

/**
 * What an MQTT 5.0 uplink keeps of its properties, as the JSON object text stored in the uplink's metadata (REST's
 * `metadata` of an event, the northbound `uplink` event's `metadata`): `userProperties` (name → value, or the values
 * in order when a name repeats), `contentType`, `payloadFormatIndicator` (0 bytes, 1 UTF-8), and the request/response
 * pair `responseTopic` and `correlationData` (base64), which lets the registry settle the command this publish
 * answers. Undefined when the publish carries none of them (its uplink then has no metadata, as a 3.1.1 one);
 * `tooLarge` with the text's size when it is over MAX_KEPT_PROPERTIES_BYTES.
 */
export function keptProperties(
  properties: PublishProperties | undefined,
): { metadata: string } | { tooLarge: number } | undefined {
  if (!properties) return undefined;
  const { userProperties, contentType, payloadFormatIndicator, responseTopic, correlationData } = properties;
  const kept: Record<string, unknown> = {};
  if (userProperties !== undefined) kept.userProperties = userProperties;
  if (contentType !== undefined) kept.contentType = contentType;
  if (payloadFormatIndicator !== undefined) kept.payloadFormatIndicator = payloadFormatIndicator ? 1 : 0;
  if (responseTopic !== undefined) kept.responseTopic = responseTopic;
  if (correlationData !== undefined) kept.correlationData = correlationData.toString("base64");
  // A publish carrying only a topic alias or a message expiry keeps nothing.
  if (Object.keys(kept).length === 0) return undefined;
  const metadata = JSON.stringify(kept);
  const bytes = Buffer.byteLength(metadata);
  return bytes > MAX_KEPT_PROPERTIES_BYTES ? { tooLarge: bytes } : { metadata };
}

/**
 * The properties a retained uplink is kept with as the topic's last value, JSON text as a command's: userProperties,
 * contentType and payloadFormatIndicator (0/1). A response topic and correlation data belong to one request, not to
 * a value later subscribers get, so they are left out (the registry keeps the same three). Undefined when none.
 */
export function stateProperties(properties: PublishProperties): string | undefined {
  const { userProperties, contentType, payloadFormatIndicator } = properties;
  const kept: Record<string, unknown> = {};
  if (userProperties !== undefined) kept.userProperties = userProperties;
  if (contentType !== undefined) kept.contentType = contentType;
  if (payloadFormatIndicator !== undefined) kept.payloadFormatIndicator = payloadFormatIndicator ? 1 : 0;
  return Object.keys(kept).length > 0 ? JSON.stringify(kept) : undefined;
}
