import { randomInt } from "node:crypto";
import { createMessageLayer, listenUdp, type MessageLayer, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, defaultResources } from "@iot/adapter-lwm2m";
import pino from "pino";
import { DIRECT_DEVICE, type SimProtocol } from "../sim-protocol.js";
import { simDataPoint } from "../sim-records.js";
import { StoredWatch } from "../stored-watch.js";

/** The resource each simulated client changes: Temperature's Sensor Value (a float), also a data point. */
const PATH = "/3303/0/5700";
/** Registration lifetime, s; each client sends an Update every half of it, so a long run stays registered. */
const LIFETIME_S = 300;
/** Clients registering at once. */
const REGISTER_CONCURRENCY = 50;

/** The value of PATH in a stored `up/notify` uplink, if it carries one. */
function notifiedValue(payload: string): number | undefined {
  try {
    const p = JSON.parse(payload) as { data?: { content?: { path: string; value: unknown }[] } };
    const v = p.data?.content?.find((c) => c.path === PATH)?.value;
    return typeof v === "number" ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `f` over `items`, at most `limit` at once. */
async function inBatches<T>(items: readonly T[], limit: number, f: (item: T, i: number) => Promise<void>) {
  for (let i = 0; i < items.length; i += limit)
    await Promise.all(items.slice(i, i + limit).map((item, j) => f(item, i + j)));
}

/**
 * LwM2M: each device is the project's LwM2M client simulator on its own UDP socket, registering with the LwM2M
 * adapter (endpoint = its IMEI; autoSub 1, so the server observes its objects). A message sets the Temperature
 * value /3303/0/5700 to the message's sequence number, which the client notifies; it counts once the `up/notify`
 * uplink carrying it is stored. The product gets the data point `3303/0/5700`, so the values are stored as data too.
 */
export const lwm2mProtocol: SimProtocol<{ imeiBase: string }> = {
  name: "lwm2m",
  cloudProtocol: 3,
  defaultTarget: "coap://{host}:5783",
  confirmsStored: true,
  maxDevices: 1_000_000,
  async prepare({ client, productID }) {
    await simDataPoint(client, productID, {
      dataPointName: "Temperature",
      dataPointID: PATH.slice(1),
      pointDataType: 1,
      dataTransType: 1,
    });
    // IMEIs are unique service-wide: a random middle part keeps two tenants' simulations apart.
    return { imeiBase: String(randomInt(10_000_000)).padStart(7, "0") };
  },
  deviceBody: (i, { imeiBase }) => ({
    ...DIRECT_DEVICE,
    IMEI: `35${imeiBase}${String(i).padStart(6, "0")}`,
    autoSub: 1,
  }),
  async open({ client, target }, devices) {
    const url = new URL(target);
    const server = { address: url.hostname, port: Number(url.port || 5783) };
    const logger = pino({ level: "silent" });
    const running: { udp: UdpListener; layer: MessageLayer; sim: Lwm2mClientSimulator }[] = [];
    const sims: Lwm2mClientSimulator[] = [];
    const closeAll = async () => {
      await Promise.all(running.map((r) => r.sim.deregister().catch(() => undefined)));
      for (const { udp, layer } of running.splice(0)) {
        layer.close();
        await udp.close();
      }
    };
    try {
      await inBatches(devices, REGISTER_CONCURRENCY, async (d, i) => {
        if (!d.IMEI) throw new Error(`${d.deviceName} has no IMEI`);
        const resources = defaultResources();
        resources.set(PATH, { type: "float", value: -1 });
        const sim = new Lwm2mClientSimulator({ endpoint: d.IMEI, lifetime: LIFETIME_S, resources });
        let udp: UdpListener | undefined;
        const layer = createMessageLayer(sim.handler, {
          logger,
          maxBodyBytes: 65_536,
          send: (b, p) => udp?.send(b, p),
        });
        udp = await listenUdp(layer, {
          port: 0,
          host: server.address.includes(":") ? "::" : "0.0.0.0",
          onError: () => {},
        });
        running.push({ udp, layer, sim });
        sims[i] = sim;
        sim.attach(layer, server);
        const r = await sim.register();
        if (r.code !== "2.01") throw new Error(`${d.deviceName} (IMEI ${d.IMEI}): Register answered ${r.code}`);
      });
      // autoSub: the server observes /3303/0 right after Register; notifications need that observation.
      const deadline = Date.now() + 10_000;
      while (running.some((r) => !r.sim.observedPaths.includes("/3303/0"))) {
        if (Date.now() > deadline) throw new Error("the LwM2M server did not observe /3303/0 of every client");
        await new Promise((r) => setTimeout(r, 50));
      }
    } catch (err) {
      await closeAll();
      throw err;
    }
    const watch = await StoredWatch.start(client, { topic: "up/notify", value: (e) => notifiedValue(e.payload) });
    const updates = setInterval(
      () => {
        for (const { sim } of running) void sim.update().catch(() => undefined);
      },
      (LIFETIME_S / 2) * 1000,
    );
    let seq = 0;
    return {
      async send(d, i) {
        const value = seq++;
        await sims[i]!.set(PATH, { type: "float", value });
        await watch.stored(d.deviceID, value);
      },
      async close() {
        clearInterval(updates);
        await watch.close();
        await closeAll();
      },
    };
  },
};
