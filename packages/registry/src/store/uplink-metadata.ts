/**
 * An uplink's stored metadata (JSON text from its adapter: LoRaWAN gateways, RSSI, SNR, frequency, data rate; MQTT
 * 5.0 user properties, content type, payload format indicator, response topic, correlation data) as an
 * object. Text that is not JSON is kept as it is, so a bad value from an adapter never fails a write or a listing.
 */
export function uplinkMetadata(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
