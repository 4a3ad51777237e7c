/**
 * MQTT 5.0 reason codes the adapter sends itself (MQTT 5.0 §2.4, tables in §3.2.2.2, §3.4.2.1 and §3.14.2.1); those
 * aedes sends on its own (0x8E session taken over when aedes' own table finds the older connection, 0x94 topic
 * alias invalid, ...) are not repeated here.
 */
export const ReasonCode = {
  /** DISCONNECT: a packet that does not read as the standard says (a property not valid for its packet type). */
  MALFORMED_PACKET: 0x81,
  /** DISCONNECT: a packet the standard forbids as sent (a property given twice). */
  PROTOCOL_ERROR: 0x82,
  /** DISCONNECT: the connection's subscription update, kick or block by an administrator. */
  ADMINISTRATIVE_ACTION: 0x98,
  /** DISCONNECT: the registry could not take the device's message now; it may send it again later. */
  SERVER_BUSY: 0x89,
  /** DISCONNECT: a newer connection of the same device took the session over (MQTT-3.1.4-3). */
  SESSION_TAKEN_OVER: 0x8e,
  /** DISCONNECT: the adapter stops (sent with a reason string before aedes closes). */
  SERVER_SHUTTING_DOWN: 0x8b,
  /** DISCONNECT: nothing arrived within 1.5 × the keep-alive (MQTT-3.1.2-22). */
  KEEP_ALIVE_TIMEOUT: 0x8d,
  /** DISCONNECT: more unacknowledged QoS 1/2 PUBLISHes than the RECEIVE_MAXIMUM advertised in CONNACK (§3.3.4). */
  RECEIVE_MAXIMUM_EXCEEDED: 0x93,
  /** DISCONNECT: a PUBLISH's topic name is not one the device may use (topic rules). */
  TOPIC_NAME_INVALID: 0x90,
  /** DISCONNECT: a packet, or a message's payload, over IOT_MAX_MESSAGE_SIZE. */
  PACKET_TOO_LARGE: 0x95,
  /** DISCONNECT: the tenant is over its uplink rate (maxUplinkRate). */
  MESSAGE_RATE_TOO_HIGH: 0x96,
  /** DISCONNECT: a publish's properties over what is kept with a message (MAX_KEPT_PROPERTIES_BYTES). */
  QUOTA_EXCEEDED: 0x97,
  /** DISCONNECT: the registry refused the message for good. */
  IMPLEMENTATION_SPECIFIC_ERROR: 0x83,
} as const;

/** Largest topic alias an MQTT 5.0 device may give its PUBLISH topics (MQTT 5.0 §3.2.2.3.8), per connection. */
export const TOPIC_ALIAS_MAXIMUM = 32;

/**
 * Receive Maximum advertised in CONNACK (MQTT 5.0 §3.2.2.3.3): QoS 1/2 publishes a device may have unacknowledged.
 * Each one waits for the registry's durable write, so this bounds what one device holds in the adapter.
 */
export const RECEIVE_MAXIMUM = 256;
