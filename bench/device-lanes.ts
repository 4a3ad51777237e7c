/**
 * Devices that keep publishing while a fault test or the soak kills and restarts processes, each remembering what the
 * service acknowledged: an MQTT client with QoS 1 (mqtt.js, which resends unacknowledged publishes after it
 * reconnects), a CoAP device sending confirmable POSTs over UDP with retransmission, an HTTP device POSTing until it
 * gets a 2xx (with an Idempotency-Key unless told not to), a LoRaWAN device sending confirmed uplinks.
 * Every payload is unique (`<label>-<n>`), so a caller can check each acknowledged one is stored, and stored once.
 */
import { createSocket } from "node:dgram";
import mqtt, { Store, type MqttClient, type Packet } from "mqtt";
import { SimulatedForwarder, type SimulatedLoraDevice } from "@iot/adapter-lorawan";
import { FakeCoapClient } from "../packages/adapters/coap/src/fake-coap-client.js";

/** The device members a load needs (as the API answers a creation). */
export interface LoadDevice {
  id: number;
  deviceID: string;
  deviceUsername: string;
  token: string;
}

/** A device under load. */
export interface DeviceLoad {
  readonly label: string;
  /** Payloads the service acknowledged: PUBACK, CoAP 2.04, HTTP 2xx. */
  readonly acked: Set<string>;
  /** Refusals and failed attempts seen (each is retried, as a device would). */
  readonly refusals: number;
  /** Messages sent at once: the most that can be under way when a process dies. */
  readonly lanes: number;
  /** Messages this load sent again after a refusal or failed attempt (each may be stored twice: at-least-once). */
  readonly resent: number;
  /** Stops sending new messages and waits until every message under way is acknowledged. */
  stop(): Promise<void>;
}

/**
 * How a load runs: messages in flight at once, the pause between messages of one lane (ms), and `onAck`, told each
 * acknowledged payload and the milliseconds from its last attempt to its acknowledgement (the soak's ack latency).
 */
export interface LoadShape {
  lanes?: number;
  pauseMs?: number;
  onAck?: (ms: number, payload: string) => void;
  /** False: `acked` stays empty (a long run keeps its own compact record through `onAck`). */
  remember?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `lanes` loops that each send `<label>-<n>` with `send` until acked (retrying after 100 ms on a refusal), and
 * answers the DeviceLoad over them.
 */
export function lanes(
  label: string,
  shape: LoadShape,
  send: (payload: string) => Promise<boolean>,
  end = async () => {},
) {
  const acked = new Set<string>();
  let next = 0;
  let stopping = false;
  let refusals = 0;
  let resent = 0;
  const lane = async () => {
    while (!stopping) {
      const payload = `${label}-${next++}`;
      let attempt = performance.now();
      let tries = 0;
      while (!(await send(payload).catch(() => false))) {
        refusals++;
        if (tries++ === 0) resent++;
        await sleep(100);
        attempt = performance.now();
      }
      shape.onAck?.(performance.now() - attempt, payload);
      if (shape.remember !== false) acked.add(payload);
      await sleep(shape.pauseMs ?? 5);
    }
  };
  const running = Promise.all(Array.from({ length: shape.lanes ?? 4 }, lane));
  return {
    label,
    acked,
    lanes: shape.lanes ?? 4,
    get refusals() {
      return refusals;
    },
    get resent() {
      return resent;
    },
    async stop() {
      stopping = true;
      await running;
      await end();
    },
  } satisfies DeviceLoad;
}

/**
 * mqtt.js's outgoing store with every publish kept as DUP=1. mqtt.js (5.14.1) resends an unacknowledged publish after
 * it reconnects as it was first sent, DUP=0, against MQTT-3.3.1-1 (checked against a broker that drops the connection
 * before PUBACK, with clean session true and false; mosquitto_pub does not resend at all: it exits). What the store
 * holds is only ever sent again, so with it the client resends as the specification asks.
 */
class ResendWithDup extends Store {
  override put(packet: Packet, cb: (error?: Error) => void): this {
    if (packet.cmd === "publish") packet.dup = true; // mqtt.js stores a copy: the first send keeps DUP=0
    return super.put(packet, cb);
  }
}

/**
 * An MQTT device publishing QoS 1 on `topic`, reconnecting every 200 ms after its connection drops and then resending
 * what was not acknowledged: with DUP=1 as MQTT-3.3.1-1 asks, or with `dupOnResend` false as plain mqtt.js does (DUP=0,
 * which the service must take for a new message). `protocolVersion` 5 speaks MQTT 5.0; `client` is the device's
 * connection (the soak drops it to make the device reconnect, and receives commands on it).
 */
export async function mqttLoad(
  url: string,
  d: LoadDevice,
  topic: string,
  shape: LoadShape = {},
  dupOnResend = true,
  protocolVersion: 4 | 5 = 4,
): Promise<DeviceLoad & { client: MqttClient }> {
  const client = await mqtt.connectAsync(url, {
    ...(dupOnResend && { outgoingStore: new ResendWithDup() }),
    clientId: d.deviceID,
    username: d.deviceUsername,
    password: d.token,
    protocolVersion,
    reconnectPeriod: 200,
    connectTimeout: 2_000,
    keepalive: 30,
  });
  client.on("error", () => {}); // refused reconnects while the adapter is down: mqtt.js tries again
  const load = lanes(
    `mqtt-${d.deviceID}-${topic}`,
    shape,
    async (p) => {
      await client.publishAsync(topic, p, { qos: 1 });
      return true;
    },
    () => client.endAsync(),
  );
  return Object.assign(load, { client });
}

/**
 * An HTTP device POSTing to `/topics/<topic>` with Basic credentials, a message acknowledged by a 2xx, retried until
 * then; each retry of a message repeats its Idempotency-Key (the payload, unique) unless `idempotencyKeys` is false.
 */
export function httpLoad(
  baseUrl: string,
  d: LoadDevice,
  topic: string,
  shape: LoadShape = {},
  idempotencyKeys = true,
): DeviceLoad {
  const authorization = `Basic ${Buffer.from(`${d.deviceUsername}:${d.token}`).toString("base64")}`;
  return lanes(`http-${d.deviceID}-${topic}`, shape, async (p) => {
    const res = await fetch(`${baseUrl}/topics/${topic}`, {
      method: "POST",
      headers: { authorization, ...(idempotencyKeys && { "idempotency-key": p }) },
      body: p,
      signal: AbortSignal.timeout(30_000), // a device's patience: longer than a central node restart
    });
    await res.arrayBuffer();
    return res.ok;
  });
}

/** RFC 7252 message types. */
const CON = 0;
const ACK = 2;

/**
 * A CoAP device on its own UDP socket sending confirmable POSTs to `/mqtt/<topic>`: a request is retransmitted (same
 * message id) every `retransmitMs` until answered, as RFC 7252 §4.2 asks (faster than its 2 s, to keep tests short);
 * 2.04 acknowledges it, any other code counts as a refusal (retried as a new request). A separate response (empty
 * ACK first) is waited for and acknowledged.
 */
export async function coapLoad(
  url: string,
  d: LoadDevice,
  topic: string,
  shape: LoadShape = {},
  retransmitMs = 300,
): Promise<DeviceLoad> {
  const { hostname, port } = new URL(url);
  const socket = createSocket("udp4");
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", r));
  const waiting = new Map<string, (code: number) => void>();
  socket.on("message", (m) => {
    if (m.length < 4) return;
    const type = (m[0]! >> 4) & 3;
    const token = m.subarray(4, 4 + (m[0]! & 0x0f)).toString("hex");
    // A separate response comes as CON: acknowledge it (empty ACK, same message id).
    if (type === CON) socket.send(Buffer.from([0x40 | (ACK << 4), 0, m[2]!, m[3]!]), Number(port), hostname);
    if (m[1] === 0) return; // the empty ACK of a separate response
    waiting.get(token)?.(m[1]!);
  });
  const builder = new FakeCoapClient({ handle: () => {} });
  const query = [`c=${d.deviceID}`, `u=${d.deviceUsername}`, `p=${d.token}`];
  let n = 0;
  const send = (payload: string) =>
    new Promise<boolean>((resolve) => {
      const token = `${d.id}-${n++}`;
      const datagram = builder.build("0.02", `/mqtt/${topic}`, { query, payload, token });
      const tokenHex = Buffer.from(token).toString("hex");
      const again = setInterval(() => socket.send(datagram, Number(port), hostname), retransmitMs);
      waiting.set(tokenHex, (code) => {
        clearInterval(again);
        waiting.delete(tokenHex);
        resolve(code === 0x44); // 2.04 Changed
      });
      socket.send(datagram, Number(port), hostname);
    });
  return lanes(`coap-${d.deviceID}-${topic}`, shape, send, async () => {
    socket.close();
  });
}

/**
 * A LoRaWAN device sending confirmed uplinks through its own simulated packet forwarder (keeping its PULL_DATA
 * going, so a restarted network server has a downlink path at once). What acknowledges an uplink here is not the
 * gateway's PUSH_ACK (receipt of the datagram only) but a downlink with the ACK bit in the device's receive windows;
 * without one the device retransmits the same frame (same FCnt, byte for byte) after its windows closed, as
 * LoRaWAN 1.0.x §18.4 has it.
 */
export async function loraLoad(
  port: number,
  gatewayEui: string,
  device: SimulatedLoraDevice,
  label: string,
  shape: LoadShape = {},
): Promise<DeviceLoad> {
  const forwarder = new SimulatedForwarder({ gatewayEui, port, keepaliveMs: 300 });
  await forwarder.start();
  forwarder.startKeepalive();
  const frames = new Map<string, Buffer>();
  const sendFrame = async (payload: string) => {
    const frame = frames.get(payload) ?? device.uplink({ confirmed: true, payload });
    frames.set(payload, frame);
    await forwarder.push({ data: frame });
    // RX2 closes 2 s after the uplink: a network server never answers later than that.
    const deadline = Date.now() + 3_000;
    while (Date.now() < deadline) {
      const d = await forwarder.nextDownlink(deadline - Date.now()).catch(() => undefined);
      const got = d && device.handleDownlink(d.data);
      if (got?.ok && got.value.ack) {
        frames.delete(payload);
        return true;
      }
    }
    return false;
  };
  // One lane: a LoRaWAN device has one confirmed uplink under way at a time.
  return lanes(`lora-${label}`, { ...shape, lanes: 1 }, sendFrame, () => forwarder.close());
}
