import { createSocket } from "node:dgram";
import mqtt from "mqtt";
import { createMessageLayer, CODES } from "@iot/adapter-coap";
import pino from "pino";

/** A simulated device's credentials, as the API lists them. */
export interface SimDevice {
  readonly deviceID: string;
  readonly deviceUsername: string;
  readonly token: string;
}

/** Sends one message for a device; resolves when the adapter acknowledged it (QoS 1, CON, HTTP 2xx). */
export type Send = (device: SimDevice, index: number, payload: string) => Promise<void>;

/** A protocol's sender, opened for a set of devices and closed at the end. */
export interface Sender {
  readonly send: Send;
  close(): Promise<void>;
}

/** Where the device adapters listen, e.g. `http://127.0.0.1:8081`, `mqtt://127.0.0.1:1883`, `coap://127.0.0.1:5683`. */
export type SimProtocol = "http" | "mqtt" | "coap";

/** The topic simulated messages go to (relative to each device). */
export const SIM_TOPIC = "sim";

/** HTTP: `POST /topics/sim` with Basic auth, answered once stored. */
function httpSender(target: string): Sender {
  return {
    async send(d, _i, payload) {
      const res = await fetch(`${target}/topics/${SIM_TOPIC}`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${d.deviceUsername}:${d.token}`).toString("base64")}`,
          "content-type": "application/json",
        },
        body: payload,
      });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
    },
    close: async () => {},
  };
}

/** MQTT: one connection per device (client id = deviceID), QoS 1 publishes acknowledged by PUBACK. */
async function mqttSender(target: string, devices: readonly SimDevice[]): Promise<Sender> {
  const clients = await Promise.all(
    devices.map((d) =>
      mqtt.connectAsync(target, {
        clientId: d.deviceID,
        username: d.deviceUsername,
        password: d.token,
        reconnectPeriod: 0,
      }),
    ),
  );
  return {
    async send(_d, i, payload) {
      await clients[i]!.publishAsync(SIM_TOPIC, payload, { qos: 1 });
    },
    async close() {
      await Promise.all(clients.map((c) => c.endAsync()));
    },
  };
}

/** CoAP: confirmable `POST /mqtt/sim?c=&u=&p=` through the project's CoAP message layer as a client. */
async function coapSender(target: string): Promise<Sender> {
  const url = new URL(target);
  const peer = { address: url.hostname, port: Number(url.port || 5683) };
  const socket = createSocket(peer.address.includes(":") ? "udp6" : "udp4");
  const layer = createMessageLayer(async () => ({ code: CODES.notFound }), {
    logger: pino({ level: "silent" }),
    maxBodyBytes: 1 << 20,
    nstart: 64,
    maxRequestsPerPeer: 100_000,
    send: (datagram, to) => socket.send(datagram, to.port, to.address),
  });
  socket.on("message", (datagram, rinfo) =>
    layer.handle(datagram, { address: rinfo.address, port: rinfo.port }, (d) =>
      socket.send(d, rinfo.port, rinfo.address),
    ),
  );
  await new Promise<void>((resolve) => socket.bind(0, resolve));
  return {
    async send(d, _i, payload) {
      const r = await layer.request(peer, {
        method: "POST",
        path: ["mqtt", SIM_TOPIC],
        query: [`c=${d.deviceID}`, `u=${d.deviceUsername}`, `p=${d.token}`],
        payload,
      });
      if (!r.code.startsWith("2.")) throw new Error(`CoAP ${r.code}`);
    },
    async close() {
      layer.close();
      await new Promise<void>((resolve) => socket.close(() => resolve()));
    },
  };
}

/** Opens the sender of `protocol` towards `target` for `devices`. */
export function openSender(protocol: SimProtocol, target: string, devices: readonly SimDevice[]): Promise<Sender> {
  if (protocol === "http") return Promise.resolve(httpSender(target));
  if (protocol === "mqtt") return mqttSender(target, devices);
  return coapSender(target);
}
