import type { Downlink } from "@iot/adapter-core";

/** The PUBLISH properties (MQTT 5.0 §3.3.2.3) a command carries to an MQTT 5.0 device, as mqtt-packet writes them. */
export interface CommandPublishProperties {
  userProperties?: Record<string, string | string[]>;
  contentType?: string;
  payloadFormatIndicator?: boolean;
  responseTopic?: string;
  correlationData?: Buffer;
  messageExpiryInterval?: number;
}

/** The command's own properties as the registry sends them (Downlink.properties, JSON text). */
interface SentProperties {
  userProperties?: Record<string, string | string[]>;
  contentType?: string;
  payloadFormatIndicator?: number;
  responseTopic?: string;
  correlationData?: string;
}

/**
 * The PUBLISH properties of a command for an MQTT 5.0 device: the ones it was issued with (user properties, content
 * type, payload format indicator, response topic, correlation data as its UTF-8 bytes), and Message Expiry Interval =
 * the seconds its TTL has left at `nowMs`, rounded up (at least 1: a command past its expiry is never sent). Undefined
 * when there are none. A 3.1.1 device is sent none (its PUBLISH has no properties).
 */
export function commandPublishProperties(
  downlink: Pick<Downlink, "properties" | "expiresAtMs">,
  nowMs: number,
): CommandPublishProperties | undefined {
  const out: CommandPublishProperties = {};
  let any = false;
  if (downlink.properties) {
    const sent = parse(downlink.properties);
    if (sent.userProperties) out.userProperties = sent.userProperties;
    if (sent.contentType !== undefined) out.contentType = sent.contentType;
    if (sent.payloadFormatIndicator !== undefined) out.payloadFormatIndicator = sent.payloadFormatIndicator === 1;
    if (sent.responseTopic !== undefined) out.responseTopic = sent.responseTopic;
    if (sent.correlationData !== undefined) out.correlationData = Buffer.from(sent.correlationData, "utf8");
    any = Object.keys(out).length > 0;
  }
  if (downlink.expiresAtMs > 0) {
    out.messageExpiryInterval = Math.max(1, Math.ceil((downlink.expiresAtMs - nowMs) / 1000));
    any = true;
  }
  return any ? out : undefined;
}

/** The registry's JSON text; one that does not parse (never sent by a registry) counts as none. */
function parse(text: string): SentProperties {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
}
