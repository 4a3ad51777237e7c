/**
 * The soak's devices on every protocol at once, each through the loads of bench/device-lanes.ts (MQTT 3.1.1 and 5.0
 * QoS 1, HTTP, CoAP, LoRaWAN through a simulated forwarder) or one of its own (CoAP over DTLS-PSK with libcoap's
 * coap-client-openssl, LwM2M in queue mode with the adapter's client simulator), and Modbus slaves the adapter polls.
 * Every acknowledgement is timed into its protocol's latency windows and, where the device knows its messages, put
 * in the load's ledger for the loss and duplicate checks.
 */
import { spawn } from "node:child_process";
import { createAdapterLogger } from "@iot/adapter-core";
import { createMessageLayer, listenUdp, type ClientResponse, type UdpListener } from "@iot/adapter-coap";
import { SimulatedLoraDevice } from "@iot/adapter-lorawan";
import { Lwm2mClientSimulator } from "@iot/adapter-lwm2m";
import type { MqttClient } from "mqtt";
import {
  coapLoad,
  httpLoad,
  lanes,
  loraLoad,
  mqttLoad,
  type DeviceLoad,
  type LoadDevice,
  type LoadShape,
} from "../device-lanes.js";
import type { SoakFleet } from "./fleet.js";
import { AckLedger, WindowedLatency } from "./record.js";
import type { Protocol, SoakPlan } from "./settings.js";

type Api = SoakFleet["f"]["api"];

/** One device's load and what the checks need of it. */
export interface SoakLoad {
  readonly protocol: Protocol;
  readonly device: LoadDevice;
  readonly load: DeviceLoad;
  readonly ledger: AckLedger;
  /** The MQTT connection, for reconnects and commands. */
  readonly client?: MqttClient;
  /** Times its connection was dropped on purpose (each may resend what was in flight). */
  reconnects: number;
}

/** The running traffic. */
export interface Traffic {
  readonly loads: SoakLoad[];
  /** Ack latencies per protocol, and the load generator's own timer delay ("driver"). */
  readonly latency: Record<Exclude<Protocol, "modbus"> | "driver", WindowedLatency>;
  readonly lwm2m: { device: LoadDevice; sim: Lwm2mClientSimulator }[];
  readonly modbusMeters: LoadDevice[];
  readonly productIDs: Record<"mqtt" | "lwm2m", string>;
  /** Stops every device, waiting for what is under way to be acknowledged. */
  stop(): Promise<void>;
}

const NWK = "44024241ED4CE9A68C6A8BC055233FD3";
const APP = "EC925802AE430CA77FD3DD73CB2CC588";

/** The members of the REST answers read here (products, gateways, devices). */
type Created = LoadDevice & { productID: string };

async function ok(api: Api, method: string, path: string, body?: unknown): Promise<Created> {
  const r = await api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Created;
}

/** Devices and lanes for `rate` messages a second, each lane pausing so the devices together offer the rate. */
function shapeFor(rate: number, devices: number, lanesEach: number, latency: WindowedLatency, ledger: AckLedger) {
  return {
    lanes: lanesEach,
    pauseMs: Math.max(1, (devices * lanesEach * 1000) / rate),
    remember: false,
    onAck: (ms: number, payload: string) => {
      latency.record(ms);
      ledger.ack(payload);
    },
  } satisfies LoadShape;
}

/**
 * One POST /mqtt/<topic> over DTLS-PSK by coap-client-openssl (a handshake each); acknowledged when it printed
 * nothing (libcoap prints any answer but 2.xx, and every handshake failure) and ended before its wait ran out.
 */
function coapsSend(url: string, d: LoadDevice, topic: string, payload: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("coap-client-openssl", [
      ...["-u", d.deviceUsername, "-k", d.token, "-m", "post", "-e", payload, "-B", "10"],
      `${url}/mqtt/${topic}`,
    ]);
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (out += b.toString()));
    child.on("error", () => resolve(false));
    // libcoap exits 0 even when no answer came: it then waits out -B (10 s) first, where an answer ends it at once.
    const started = performance.now();
    child.on("exit", (code) => resolve(code === 0 && out === "" && performance.now() - started < 9_000));
  });
}

export async function startTraffic(
  s: SoakFleet,
  plan: SoakPlan,
  startedAt: number,
  log: (line: string) => void,
): Promise<Traffic> {
  const api: Api = (method, path, body) => s.f.api(method, path, body);
  const latency = Object.fromEntries(
    (["mqtt", "mqtt5", "http", "coap", "coaps", "lwm2m", "lorawan", "driver"] as const).map((p) => [
      p,
      new WindowedLatency(startedAt, plan.windowMs),
    ]),
  ) as Traffic["latency"];
  const product = async (name: string, cloudProtocol: number) =>
    (await ok(api, "POST", "/products", { productName: `soak ${name}`, cloudProtocol })).productID;
  // The load generator's own delay: a timer due every 10 ms, its lateness recorded as the "driver" protocol. Every
  // ack latency above includes it, so the latency check allows for it (a shared machine stalls this process too).
  let due = performance.now() + 10;
  const driverTimer = setInterval(() => {
    const now = performance.now();
    latency.driver.record(Math.max(0, now - due), now);
    due = now + 10;
  }, 10);
  const productIDs = { mqtt: await product("mqtt", 1), lwm2m: await product("lwm2m", 3) };
  const coapProduct = await product("coap", 2);
  const httpProduct = await product("http", 5);
  const device = async (productID: string, name: string, extra: Record<string, unknown> = {}) =>
    (await ok(api, "POST", "/devices", {
      productID,
      deviceName: name,
      deviceType: 1,
      upLinkSystem: 1,
      authType: 1,
      ...extra,
    })) as LoadDevice;
  const loads: SoakLoad[] = [];
  const settings = s.f.settings;
  const mqttUrl = `mqtt://127.0.0.1:${settings.IOT_MQTT_PORT}`;
  const add = async (
    protocol: Protocol,
    count: number,
    lanesEach: number,
    make: (d: LoadDevice, shape: LoadShape) => Promise<DeviceLoad & { client?: MqttClient }>,
    productID: string,
  ) => {
    const rate = plan.rates[protocol as Exclude<Protocol, "modbus">];
    for (let i = 0; i < count; i++) {
      const d = await device(productID, `soak-${protocol}-${i}`);
      // The label each load of device-lanes gives its payloads: `<kind>-<deviceID>-<topic>`.
      const kind = protocol === "mqtt5" ? "mqtt" : protocol;
      const ledger = new AckLedger(`${kind}-${d.deviceID}-telemetry`);
      const load = await make(
        d,
        shapeFor(rate, count, lanesEach, latency[protocol as keyof Traffic["latency"]], ledger),
      );
      loads.push({ protocol, device: d, load, ledger, ...(load.client && { client: load.client }), reconnects: 0 });
    }
  };
  const deviceCount = (rate: number, perDevice: number, most: number) =>
    Math.max(2, Math.min(most, Math.ceil(rate / perDevice)));
  await add(
    "mqtt",
    deviceCount(plan.rates.mqtt, 100, 40),
    2,
    (d, shape) => mqttLoad(mqttUrl, d, "telemetry", shape, true, 4),
    productIDs.mqtt,
  );
  await add(
    "mqtt5",
    deviceCount(plan.rates.mqtt5, 100, 20),
    2,
    (d, shape) => mqttLoad(mqttUrl, d, "telemetry", shape, true, 5),
    productIDs.mqtt,
  );
  const httpUrl = `http://127.0.0.1:${settings.IOT_HTTP_DEVICE_PORT}`;
  await add(
    "http",
    deviceCount(plan.rates.http, 50, 16),
    2,
    async (d, shape) => httpLoad(httpUrl, d, "telemetry", shape),
    httpProduct,
  );
  const coapUrl = `coap://127.0.0.1:${settings.IOT_COAP_PORT}`;
  await add(
    "coap",
    deviceCount(plan.rates.coap, 50, 16),
    2,
    (d, shape) => coapLoad(coapUrl, d, "telemetry", shape),
    coapProduct,
  );
  await add(
    "coaps",
    2,
    1,
    async (d, shape) => lanes(`coaps-${d.deviceID}-telemetry`, shape, (p) => coapsSend(s.coapsUrl, d, "telemetry", p)),
    coapProduct,
  );
  // LoRaWAN: ABP devices behind one gateway each (its own simulated forwarder), one confirmed uplink in flight per
  // device, so a device's rate is bounded by its receive windows (about one a second).
  const loraProduct = await product("lorawan", 4);
  const loraDevices = deviceCount(plan.rates.lorawan, 1, 30);
  for (let i = 0; i < loraDevices; i++) {
    const eui = `AA555A0000${String(i).padStart(6, "0")}`;
    const gw = await ok(api, "POST", "/gateways", {
      productID: loraProduct,
      gatewayName: eui,
      gatewayProtocol: 4,
      authType: 1,
      deviceID: eui,
    });
    const devAddr = `2601${String(i).padStart(4, "0")}`;
    const d = (await ok(api, "POST", "/devices", {
      productID: loraProduct,
      deviceName: `soak-lorawan-${i}`,
      deviceID: devAddr,
      upLinkSystem: 2,
      gateway: gw.id,
      lora: { type: "abp", region: "EU868", nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0, fcntCheck: 1 },
    })) as LoadDevice;
    const sim = new SimulatedLoraDevice({ abp: { devAddr, nwkSKey: NWK, appSKey: APP } });
    const ledger = new AckLedger(`lora-${devAddr}`);
    const load = await loraLoad(
      s.loraPort,
      eui,
      sim,
      devAddr,
      shapeFor(plan.rates.lorawan, loraDevices, 1, latency.lorawan, ledger),
    );
    loads.push({ protocol: "lorawan", device: d, load, ledger, reconnects: 0 });
  }
  const lwm2m = await startLwm2m(s, plan, productIDs.lwm2m, latency.lwm2m, device);
  const modbusMeters = await startModbus(s, plan, api);
  log(
    `traffic: ${loads.length} publishing devices, ${lwm2m.devices.length} LwM2M in queue mode, ${modbusMeters.length} Modbus slaves`,
  );
  return {
    loads,
    latency,
    lwm2m: lwm2m.devices,
    modbusMeters,
    productIDs,
    async stop() {
      clearInterval(driverTimer);
      await lwm2m.stop();
      await Promise.all(loads.map((l) => l.load.stop()));
    },
  };
}

/**
 * LwM2M devices in queue mode (binding UQ): each registers, then sends an Update every few seconds (the ack timed
 * is its 2.04), registering again when the server no longer knows it (a restarted adapter answers 4.04).
 */
async function startLwm2m(
  s: SoakFleet,
  plan: SoakPlan,
  productID: string,
  latency: WindowedLatency,
  device: (productID: string, name: string, extra?: Record<string, unknown>) => Promise<LoadDevice>,
) {
  const count = Math.max(2, Math.min(100, Math.ceil(plan.rates.lwm2m)));
  const everyMs = Math.max(1000, (count * 1000) / plan.rates.lwm2m);
  const server = { address: "127.0.0.1", port: Number(s.f.settings.IOT_LWM2M_PORT) };
  const devices: { device: LoadDevice; sim: Lwm2mClientSimulator }[] = [];
  const sockets: { udp: UdpListener; close: () => void }[] = [];
  for (let i = 0; i < count; i++) {
    const IMEI = `3590000${String(i).padStart(8, "0")}`;
    const d = await device(productID, `soak-lwm2m-${i}`, { IMEI, autoSub: 0 });
    const sim = new Lwm2mClientSimulator({ endpoint: IMEI, lifetime: 300, binding: "UQ" });
    let udp: UdpListener | undefined;
    const layer = createMessageLayer(sim.handler, {
      logger: createAdapterLogger("lwm2m-soak", "silent"),
      maxBodyBytes: 65_536,
      send: (datagram, peer) => udp?.send(datagram, peer),
    });
    udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
    sockets.push({ udp, close: () => layer.close() });
    sim.attach(layer, server);
    devices.push({ device: d, sim });
  }
  let stopping = false;
  const loop = async (sim: Lwm2mClientSimulator, offset: number) => {
    await new Promise((r) => setTimeout(r, offset));
    let registered = false;
    while (!stopping) {
      const at = performance.now();
      try {
        const answer: ClientResponse = registered ? await sim.update() : await sim.register();
        if (answer.code === "2.04" || answer.code === "2.01") latency.record(performance.now() - at);
        registered = answer.code === "2.04" || answer.code === "2.01";
      } catch {
        registered = false; // no answer (the adapter is down): register again once it is back
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  const running = devices.map((d, i) => loop(d.sim, (i * everyMs) / count));
  return {
    devices,
    async stop() {
      stopping = true;
      await Promise.all(running);
      for (const x of sockets) {
        x.close();
        await x.udp.close();
      }
    },
  };
}

/**
 * Modbus: a product with one holding register (the slaves' counter, changing every second), a gateway whose channel
 * is the slaves' process, one meter per unit; then the Modbus adapter for that gateway.
 */
async function startModbus(s: SoakFleet, plan: SoakPlan, api: Api): Promise<LoadDevice[]> {
  const productID = (await ok(api, "POST", "/products", { productName: "soak modbus", cloudProtocol: 7 })).productID;
  await ok(api, "POST", "/data_points", {
    productID,
    dataPointName: "count",
    dataPointID: "count",
    pointDataType: 25,
    dataTransType: 3,
    registerAddr: "400001",
  });
  const edge = (await ok(api, "POST", "/products", { productName: "soak edge", cloudProtocol: 7 })).productID;
  const gateway = await ok(api, "POST", "/gateways", {
    productID: edge,
    gatewayName: "soak slaves",
    gatewayProtocol: 7,
    authType: 1,
    channel: { chntype: "tcp", tcphost: "127.0.0.1", tcpport: s.modbusPort, pollInterval: 1000, timeout: 1000 },
  });
  const meters: LoadDevice[] = [];
  for (let unit = 1; unit <= plan.modbusSlaves; unit++)
    meters.push(
      await ok(api, "POST", "/devices", {
        productID,
        deviceName: `soak meter ${unit}`,
        upLinkSystem: 2,
        gateway: gateway.id,
        modBusIndex: unit,
        authType: 1,
      }),
    );
  await s.startModbus({
    IOT_MODBUS_GATEWAY_ID: gateway.deviceID,
    IOT_MODBUS_GATEWAY_USERNAME: gateway.deviceUsername,
    IOT_MODBUS_GATEWAY_TOKEN: gateway.token,
  });
  return meters;
}
