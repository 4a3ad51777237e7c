import { DIRECT_DEVICE, SIM_TOPIC, type SimProtocol } from "../sim-protocol.js";

/** HTTP: `POST /topics/sim` with Basic auth, answered once stored. */
export const httpProtocol: SimProtocol = {
  name: "http",
  cloudProtocol: 5,
  defaultTarget: "http://{host}:8081",
  deviceBody: () => DIRECT_DEVICE,
  open: async ({ target }) => ({
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
  }),
};
