/**
 * MQTT 5.0 PUBLISH properties a command may carry (device_publish, group_publish; docs/devices/mqtt.md "Command
 * properties"), as the API validated them. An MQTT 5.0 device gets them on the command's PUBLISH; other devices and
 * protocols ignore them.
 */
export interface CommandProperties {
  /** name → value, or the values in order when a name repeats. */
  userProperties?: Record<string, string | string[]> | undefined;
  contentType?: string | undefined;
  /** 0 bytes, 1 UTF-8 text. */
  payloadFormatIndicator?: 0 | 1 | undefined;
  /** Relative topic the device answers on. */
  responseTopic?: string | undefined;
  /** Sent as its UTF-8 bytes; the device's answer repeats them. */
  correlationData?: string | undefined;
}

/** A command's properties as its control log keeps them. */
export interface StoredCommandProperties {
  /** JSON object text of the properties given, or null when none. */
  properties: string | null;
  /** The key its answer will carry (`answerKey`) when it has both a response topic and correlation data, else null. */
  awaitingAnswer: string | null;
}

/**
 * The key that ties a device's answer to the command it answers: its correlation data (base64 of the bytes, which
 * holds no space) and the answer's topic (relative, the command's response topic). PostgreSQL text holds no NUL.
 */
export function answerKey(topic: string, correlationDataBase64: string): string {
  return `${correlationDataBase64} ${topic}`;
}

/** What the control log of a command with these properties keeps. */
export function storedCommandProperties(p: CommandProperties | undefined): StoredCommandProperties {
  if (!p) return { properties: null, awaitingAnswer: null };
  const kept: CommandProperties = {};
  if (p.userProperties !== undefined) kept.userProperties = p.userProperties;
  if (p.contentType !== undefined) kept.contentType = p.contentType;
  if (p.payloadFormatIndicator !== undefined) kept.payloadFormatIndicator = p.payloadFormatIndicator;
  if (p.responseTopic !== undefined) kept.responseTopic = p.responseTopic;
  if (p.correlationData !== undefined) kept.correlationData = p.correlationData;
  if (Object.keys(kept).length === 0) return { properties: null, awaitingAnswer: null };
  const awaitingAnswer =
    kept.responseTopic !== undefined && kept.correlationData !== undefined
      ? answerKey(kept.responseTopic, Buffer.from(kept.correlationData, "utf8").toString("base64"))
      : null;
  return { properties: JSON.stringify(kept), awaitingAnswer };
}

/**
 * The properties a command is sent with along its route: as stored, but a command relayed by its device's gateway
 * (on `devices/<deviceID>/<topic>`) names its response topic the same way, so the gateway's relayed answer reaches
 * the device's own topic.
 */
export function routedProperties(properties: string | null, relayPrefix: string | undefined): string | undefined {
  if (properties === null) return undefined;
  if (relayPrefix === undefined || !properties.includes('"responseTopic"')) return properties;
  const p = JSON.parse(properties) as CommandProperties;
  if (p.responseTopic !== undefined) p.responseTopic = `${relayPrefix}${p.responseTopic}`;
  return JSON.stringify(p);
}

/**
 * The answer key of a stored uplink: its (relative) topic and the correlation data its MQTT 5.0 metadata holds;
 * undefined for an uplink without correlation data (almost all: only those pay for parsing their metadata).
 */
export function uplinkAnswerKey(topic: string, metadata: string | null | undefined): string | undefined {
  if (!metadata?.includes('"correlationData"')) return undefined;
  try {
    const data = (JSON.parse(metadata) as { correlationData?: unknown }).correlationData;
    return typeof data === "string" && data.length > 0 ? answerKey(topic, data) : undefined;
  } catch {
    return undefined;
  }
}
