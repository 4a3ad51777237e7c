/**
 * A persistent MQTT session (clean session 0, or a Session Expiry Interval above 0): what outlives the device's
 * connection, kept here rather than in an adapter's memory so that it survives adapter restarts and moves between
 * adapters and nodes (docs/devices/mqtt.md "Persistent sessions"). One per device and client id.
 */
export interface MqttSessionsTable {
  deviceIntId: number;
  /** The MQTT client id the device connected with (its deviceID). */
  clientId: string;
  /** The registry session (AuthenticateResponse.session_id) of the connection that holds it now or held it last. */
  sessionId: string;
  /** JSON array of `StoredSubscription` (filters relative to the mountpoint, with their QoS and 5.0 options). */
  subscriptions: string;
  /** Seconds the session outlives its connection; 4294967295 never expires. */
  expiryInterval: number;
  /** Epoch ms after which it is gone; null while its connection lasts, or when it never expires. */
  expiresAt: number | null;
  updatedAt: number;
}
