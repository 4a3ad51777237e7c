import { createSocket } from "node:dgram";
import { createMessageLayer, CODES } from "@iot/adapter-coap";
import pino from "pino";
import { DIRECT_DEVICE, SIM_TOPIC, type SimProtocol } from "../sim-protocol.js";

/** CoAP: confirmable `POST /mqtt/sim?c=&u=&p=` through the project's CoAP message layer as a client. */
export const coapProtocol: SimProtocol = {
  name: "coap",
  cloudProtocol: 2,
  defaultTarget: "coap://{host}:5683",
  broker: { field: "coapBroker", scheme: "coap" },
  deviceBody: () => DIRECT_DEVICE,
  async open({ target }) {
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
  },
};
