/**
 * The QoS 1 publish load the MQTT benchmarks share (bench:mqtt, bench:cluster): devices with a send window, the
 * rate of them all publishing at once, and the client settings they connect with.
 */
import mqtt, { type MqttClient } from "mqtt";

/** How many unacknowledged publishes each device keeps in flight, like a device with a send window. */
export const WINDOW = 32;

/** The telemetry every benchmark device sends: a small JSON object (4 numbers). */
export const TELEMETRY = Buffer.from(JSON.stringify({ temperature: 21.5, humidity: 40, battery: 97, pressure: 1013 }));

/** MQTT 5.0 properties a device's publishes carry (bench:mqtt5), or none. */
export type PublishProperties = mqtt.IClientPublishOptions["properties"];

/**
 * One device publishing `count` QoS 1 messages of `payload` (with MQTT 5.0 `properties`), at most WINDOW
 * unacknowledged at a time. Rejects when the broker disconnects the device meanwhile: its unanswered publishes would
 * otherwise be awaited for ever.
 */
export async function publishAll(
  client: MqttClient,
  count: number,
  payload: Buffer = TELEMETRY,
  properties?: PublishProperties,
): Promise<void> {
  let next = 0;
  const options = properties ? { qos: 1 as const, properties } : { qos: 1 as const };
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await client.publishAsync(`telemetry/${i % 10}`, payload, options);
    }
  };
  let onClose = () => {};
  const closed = new Promise<never>((_, reject) => {
    onClose = () => reject(new Error(`device ${client.options.clientId} was disconnected while publishing`));
    if (client.connected) client.once("close", onClose);
    else onClose();
  });
  try {
    await Promise.race([Promise.all(Array.from({ length: WINDOW }, lane)), closed]);
  } finally {
    client.off("close", onClose);
  }
}

/** Messages per second (PUBACKed) for every client publishing `perDevice` messages (with `properties`) at once. */
export async function measure(
  clients: MqttClient[],
  perDevice: number,
  properties?: PublishProperties,
): Promise<number> {
  const started = performance.now();
  await Promise.all(clients.map((c) => publishAll(c, perDevice, TELEMETRY, properties)));
  return (clients.length * perDevice) / ((performance.now() - started) / 1000);
}

/** An MQTT 3.1.1 client that never reconnects by itself (a lost connection shows), connected. */
export const connect = (url: string, opts: mqtt.IClientOptions = {}) =>
  mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, ...opts });

/** The part of the test fleet that makes devices: its REST call and its MQTT address. */
interface DeviceMaker {
  api: (
    method: string,
    path: string,
    body?: unknown,
  ) => Promise<{ body: { deviceID: string } & Record<string, string> }>;
  mqttUrl: string;
}

/** Creates `count` token devices of the product (`<prefix>-<i>`) through REST and connects each with `options`. */
export async function connectNewDevices(
  fleet: DeviceMaker,
  productID: string,
  prefix: string,
  count: number,
  options: mqtt.IClientOptions = {},
): Promise<{ deviceID: string; client: MqttClient }[]> {
  const made: { deviceID: string; client: MqttClient }[] = [];
  for (let i = 0; i < count; i++) {
    const body = { productID, deviceName: `${prefix}-${i}`, deviceType: 1, upLinkSystem: 1, authType: 1 };
    const d = (await fleet.api("POST", "/devices", body)).body;
    const client = await connect(fleet.mqttUrl, {
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      ...options,
    });
    made.push({ deviceID: d.deviceID, client });
  }
  return made;
}
