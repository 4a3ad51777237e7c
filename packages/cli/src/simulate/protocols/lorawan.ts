import { createHash, randomBytes } from "node:crypto";
import { SimulatedForwarder, SimulatedLoraDevice } from "@iot/adapter-lorawan";
import { answer, type AnswerOf } from "../../client.js";
import type { SimProtocol } from "../sim-protocol.js";
import { StoredWatch } from "../stored-watch.js";

/** The gateway record the simulated packet forwarder stands for. */
const GATEWAY = "sim-lorawan-gateway";
/** The FPort simulated devices send on: their uplinks are stored on `up/1`. */
const FPORT = 1;
/** DevAddrs are `26` + a random byte per run + the device's index in 16 bits. */
const MAX_DEVICES = 0x10000;

/** The simulation's gateway, as the API answers it. */
type Gateway = Pick<AnswerOf<"/api/v1/gateways", "POST">, "id" | "deviceID" | "gatewayName" | "productID">;

/**
 * The simulated device's session keys, derived from its DevAddr: a reused device gets the same keys in every run
 * without the CLI keeping them anywhere. For simulation only — a real device's keys are random.
 */
function keysOf(devAddr: string) {
  const key = (label: string) => createHash("sha256").update(`${label}:${devAddr}`).digest("hex").slice(0, 32);
  return { nwkSKey: key("sim-lorawan-nwk"), appSKey: key("sim-lorawan-app") };
}

/** The sequence number in a stored simulated uplink (`{"seq":n}`), if it carries one. */
function seqOf(payload: string): number | undefined {
  try {
    const v = (JSON.parse(payload) as { seq?: unknown }).seq;
    return typeof v === "number" ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * LoRaWAN: N ABP devices (DevAddr = deviceID, EU868, `fcntCheck` 2 so a new run's counters starting at 0 count as
 * a restart) heard by one simulated Semtech UDP packet forwarder standing for the gateway `sim-lorawan-gateway`,
 * talking to the LoRaWAN network server at --target (default `udp://<API host>:1700`). A message is an unconfirmed
 * uplink on FPort 1 carrying `{"seq":n}`, encrypted and MIC'd as the device would; it counts once its decrypted
 * payload (or a later one) is stored on `up/1`.
 */
export const lorawanProtocol: SimProtocol<{ gateway: Gateway; addrBase: string }> = {
  name: "lorawan",
  cloudProtocol: 4,
  defaultTarget: "udp://{host}:1700",
  confirmsStored: true,
  maxDevices: MAX_DEVICES,
  async prepare({ client, productID }) {
    const found = await answer(
      client.GET("/api/v1/gateways", { params: { query: { gatewayName_like: GATEWAY, _limit: "1000" } } }),
    );
    // Gateway EUIs and DevAddrs are unique service-wide: random parts keep two tenants' simulations apart.
    const gateway =
      found.items.find((g) => g.gatewayName === GATEWAY && g.productID === productID) ??
      (await answer(
        client.POST("/api/v1/gateways", {
          body: {
            productID,
            gatewayName: GATEWAY,
            gatewayProtocol: 4,
            authType: 1,
            deviceID: `AA555A00${randomBytes(4).toString("hex").toUpperCase()}`,
          },
        }),
      ));
    return { gateway, addrBase: `26${randomBytes(1).toString("hex").toUpperCase()}` };
  },
  deviceBody(i, { gateway, addrBase }) {
    const devAddr = `${addrBase}${i.toString(16).toUpperCase().padStart(4, "0")}`;
    return {
      deviceID: devAddr,
      upLinkSystem: 2,
      gateway: gateway.id,
      lora: { type: "abp", region: "EU868", ...keysOf(devAddr), fcntUp: 0, fcntDown: 0, fcntCheck: 2 },
    };
  },
  async open({ client, target }, devices, { gateway }) {
    const url = new URL(target);
    const forwarder = new SimulatedForwarder({
      gatewayEui: gateway.deviceID,
      host: url.hostname,
      port: Number(url.port || 1700),
    });
    const sims = devices.map(
      (d) => new SimulatedLoraDevice({ fcntBits: 16, abp: { devAddr: d.deviceID, ...keysOf(d.deviceID) } }),
    );
    try {
      await forwarder.start();
    } catch (err) {
      await forwarder.close();
      throw new Error(`no packet-forwarder answer from the LoRaWAN network server at ${target}: ${String(err)}`, {
        cause: err,
      });
    }
    const watch = await StoredWatch.start(client, { topic: `up/${FPORT}`, value: (e) => seqOf(e.payload) });
    let seq = 0;
    return {
      async send(d, i) {
        const value = ++seq;
        const sim = sims[i]!;
        await forwarder.push({
          data: sim.uplink({ fPort: FPORT, payload: JSON.stringify({ seq: value }) }),
          ...sim.nextRadio(),
        });
        await watch.stored(d.deviceID, value);
      },
      async close() {
        await watch.close();
        await forwarder.close();
      },
    };
  },
};
