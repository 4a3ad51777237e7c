/**
 * The LoRaWAN adapter end to end: the central node and the adapter as processes on real ports, simulated packet
 * forwarders (three gateways) and simulated LoRa devices on real UDP sockets, records made through the REST API.
 */
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedForwarder, SimulatedLoraDevice, hearOnAll } from "@iot/adapter-lorawan";
import { startTestFleet, type TestFleet } from "./helpers.js";
import { pendingLoraCommands } from "./lora-metrics.js";

const GW = ["AA555A0000000101", "AA555A0000000102", "AA555A0000000103"];
const APP_KEY = "2B7E151628AED2A6ABF7158809CF4F3C";
const NWK = "44024241ED4CE9A68C6A8BC055233FD3";
const APP = "EC925802AE430CA77FD3DD73CB2CC588";

let t: TestFleet;
let port = 0;
let productID = "";
const gatewayIds: number[] = [];
const forwarders: SimulatedForwarder[] = [];

type Api = TestFleet["api"];
async function ok(api: Api, method: string, path: string, body?: unknown) {
  const r = await api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

const events = async (id: number) =>
  (await t.api("GET", `/devices/${id}/events?_limit=50`)).body.items as {
    topic: string;
    payload: string;
    metadata?: { fCnt: number; gateways: { gatewayEui: string; rssi: number; snr: number }[] };
  }[];
const controlStatus = async (id: number) =>
  String(
    ((await t.api("GET", `/devices/${id}/control_logs`)).body.items as { publishStatus: unknown }[])[0]?.publishStatus,
  );

async function abpDevice(devAddr: string, extra: Record<string, unknown> = {}) {
  const d = await ok(t.api, "POST", "/devices", {
    productID,
    deviceName: `abp ${devAddr}`,
    deviceID: devAddr,
    upLinkSystem: 2,
    gateway: gatewayIds[0],
    lora: { type: "abp", region: "EU868", nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0, fcntCheck: 1, ...extra },
  });
  const sim = new SimulatedLoraDevice({ abp: { devAddr, nwkSKey: NWK, appSKey: APP } });
  return { id: d.id as number, sim };
}

beforeAll(async () => {
  t = await startTestFleet(
    // Its metrics on a free port: the tests wait on the commands the adapter holds (iot_adapter_commands_pending).
    { IOT_LORA_UDP_PORT: "0", IOT_LORA_DEV_STATUS_EVERY: "0", IOT_LORAWAN_METRICS_PORT: "0" },
    { adapters: ["lorawan-adapter"] },
  );
  const adapter = t.fleet.adapters.find((a) => a.name === "lorawan-adapter")!;
  port = Number(new URL(adapter.urls.lorawan!).port);
  productID = (await ok(t.api, "POST", "/products", { productName: "Sensors", cloudProtocol: 4 })).productID;
  for (const eui of GW) {
    const g = await ok(t.api, "POST", "/gateways", {
      productID,
      gatewayName: `gw ${eui.slice(-2)}`,
      gatewayProtocol: 4,
      authType: 1,
      deviceID: eui,
    });
    gatewayIds.push(g.id);
    const f = new SimulatedForwarder({ gatewayEui: eui, port, keepaliveMs: 0 });
    await f.start();
    await f.pull();
    forwarders.push(f);
  }
}, 90_000);

afterAll(async () => {
  await Promise.all(forwarders.map((f) => f.close()));
  await t?.close();
});

describe("LoRaWAN adapter", () => {
  it("logs a gateway online once its PULL_DATA arrives, and keeps its stat reports as gateway events", async () => {
    const online = async () =>
      ((await t.api("GET", `/devices/${gatewayIds[0]}/connect_logs`)).body.items as Record<string, unknown>[]).some(
        (l) => String(l.deviceStatus ?? l.connectStatus) === "1",
      );
    await expect.poll(online, { timeout: 10_000 }).toBe(true);
    await forwarders[0]!.sendStat({ lati: 52.1, long: 4.3 });
    const stats = async () =>
      ((await t.api("GET", `/gateways/${gatewayIds[0]}/events`)).body.items as { topic: string; payload: string }[])
        .filter((e) => e.topic === "stat")
        .map((e) => JSON.parse(e.payload) as { lati?: number });
    await expect.poll(stats, { timeout: 10_000 }).toEqual([expect.objectContaining({ lati: 52.1 })]);
  });

  it("admits an OTAA join and stores the joined device's decrypted uplink with its radio metadata", async () => {
    const d = await ok(t.api, "POST", "/devices", {
      productID,
      deviceName: "tracker",
      deviceID: "70B3D57ED0000A01",
      upLinkSystem: 1,
      lora: { type: "otaa", appEUI: "70B3D57ED0000000", appKey: APP_KEY, fcntCheck: 1, canJoin: true, region: "EU868" },
    });
    const sim = new SimulatedLoraDevice({
      otaa: { devEui: "70B3D57ED0000A01", appEui: "70B3D57ED0000000", appKey: APP_KEY },
    });
    await forwarders[0]!.push({ data: sim.joinRequest() });
    const accept = await forwarders[0]!.nextDownlink(8_000);
    expect(accept.mType).toBe(1);
    const joined = sim.handleJoinAccept(accept.data);
    expect(joined.ok).toBe(true);
    await forwarders[0]!.push({ data: sim.uplink({ fPort: 3, payload: "temp=21.5" }), rssi: -71, lsnr: 6.5 });
    await expect.poll(async () => (await events(d.id)).length, { timeout: 10_000 }).toBe(1);
    const [e] = await events(d.id);
    expect(e).toMatchObject({ topic: "up/3", payload: "temp=21.5" });
    expect(e!.metadata).toMatchObject({
      fCnt: 0,
      gateways: [{ gatewayEui: GW[0]!.toLowerCase(), rssi: -71, snr: 6.5 }],
    });
  });

  it("stores an ABP uplink once, makes one uplink of a frame three gateways heard, and refuses a replay", async () => {
    const { id, sim } = await abpDevice("26011B01");
    await forwarders[0]!.push({ data: sim.uplink({ payload: "a" }) });
    await expect.poll(async () => (await events(id)).length, { timeout: 10_000 }).toBe(1);
    const frame = sim.uplink({ payload: "b" });
    await hearOnAll({ data: frame }, [
      { forwarder: forwarders[0]!, rssi: -90, lsnr: 1 },
      { forwarder: forwarders[1]!, rssi: -60, lsnr: 8 },
      { forwarder: forwarders[2]!, rssi: -75, lsnr: 4 },
    ]);
    await expect.poll(async () => (await events(id)).length, { timeout: 10_000 }).toBe(2);
    const b = (await events(id)).find((e) => e.payload === "b")!;
    expect(b.metadata!.gateways.map((g) => g.gatewayEui)).toEqual([GW[1], GW[2], GW[0]].map((g) => g!.toLowerCase()));
    expect(b.metadata!.gateways[0]).toMatchObject({ rssi: -60, snr: 8 });
    await quietFor(1_600, "past the dedup memory: the replay is judged by its counter");
    await forwarders[1]!.push({ data: sim.replay(2) });
    const adapter = t.fleet.adapters.find((a) => a.name === "lorawan-adapter")!;
    await expect
      .poll(() => adapter.errors.some((l) => l.includes("replayed uplink refused") && l.includes("26011b01")))
      .toBe(true);
    expect((await events(id)).map((e) => e.payload).sort()).toEqual(["a", "b"]);
  });

  it("sends a confirmed downlink in RX1 of the next uplink and marks it delivered when the device ACKs it", async () => {
    const { id, sim } = await abpDevice("26011B02");
    await forwarders[0]!.push({ data: sim.uplink({ payload: "hello" }) });
    await expect.poll(async () => (await events(id)).length, { timeout: 10_000 }).toBe(1);
    const held = await pendingLoraCommands(t);
    const pub = await t.api("POST", "/device_publish", {
      deviceID: "26011B02",
      deviceIntID: id,
      payload: "hex:0102ff",
      topic: "dn/9/confirmed",
    });
    expect(pub.status).toBe(201);
    // The command has reached the adapter, which holds it for the device's next uplink.
    await expect.poll(() => pendingLoraCommands(t), { timeout: 5_000 }).toBe(held + 1);
    const tmst = forwarders[0]!.tmst;
    await forwarders[0]!.push({ data: sim.uplink({ payload: "poll" }), tmst });
    const d = await forwarders[0]!.nextDownlink(5_000);
    expect(d.tmst).toBe((tmst + 1_000_000) % 2 ** 32);
    const got = sim.handleDownlink(d.data);
    if (!got.ok) throw new Error(got.reason);
    expect(got.value).toMatchObject({ fPort: 9, confirmed: true, payload: Buffer.from([1, 2, 0xff]) });
    expect(await controlStatus(id)).not.toBe("2");
    await forwarders[0]!.push({ data: sim.uplink({ payload: "ack" }) });
    await expect.poll(() => controlStatus(id), { timeout: 10_000 }).toBe("2");
  });

  it("retries a downlink in RX2 when the gateway refuses RX1", async () => {
    const { id, sim } = await abpDevice("26011B03");
    await forwarders[0]!.push({ data: sim.uplink({ payload: "hello" }) });
    await expect.poll(async () => (await events(id)).length, { timeout: 10_000 }).toBe(1);
    const held = await pendingLoraCommands(t);
    await t.api("POST", "/device_publish", { deviceID: "26011B03", deviceIntID: id, payload: "x", topic: "dn/4" });
    // The command has reached the adapter, which holds it for the device's next uplink.
    await expect.poll(() => pendingLoraCommands(t), { timeout: 5_000 }).toBe(held + 1);
    forwarders[0]!.failNextTxAck("TOO_LATE");
    const tmst = forwarders[0]!.tmst;
    await forwarders[0]!.push({ data: sim.uplink({ payload: "poll" }), tmst });
    const rx1 = await forwarders[0]!.nextDownlink(5_000);
    const rx2 = await forwarders[0]!.nextDownlink(5_000);
    expect(rx1.txAck?.error).toBe("TOO_LATE");
    expect(rx2).toMatchObject({ tmst: (tmst + 2_000_000) % 2 ** 32, freq: 869.525, datr: "SF12BW125" });
    const got = sim.handleDownlink(rx2.data);
    expect(got.ok && got.value.payload.toString()).toBe("x");
    await expect.poll(() => controlStatus(id), { timeout: 10_000 }).toBe("3");
  });

  it("hands a decrypted payload to the data pipeline: a JSON uplink becomes a data point's original data", async () => {
    const product = await ok(t.api, "POST", "/products", { productName: "Metered LoRa", cloudProtocol: 4 });
    const temp = await ok(t.api, "POST", "/data_points", {
      productIntID: product.id,
      dataPointName: "temp",
      dataPointID: "temp",
      pointDataType: 1,
      dataTransType: 1,
    });
    await ok(t.api, "POST", "/data_streams", {
      productIntID: product.id,
      streamName: "lora",
      streamType: 1,
      streamDataType: 1,
      topic: "up/#",
      dataPoints: [temp.id],
    });
    const d = await ok(t.api, "POST", "/devices", {
      productID: product.productID,
      deviceName: "metered",
      deviceID: "26011B05",
      upLinkSystem: 2,
      gateway: gatewayIds[0],
      lora: { type: "abp", region: "EU868", nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0, fcntCheck: 1 },
    });
    const sim = new SimulatedLoraDevice({ abp: { devAddr: "26011B05", nwkSKey: NWK, appSKey: APP } });
    await forwarders[1]!.push({ data: sim.uplink({ fPort: 3, payload: JSON.stringify({ temp: 21.5 }) }) });
    const values = async () =>
      (
        (await t.api("GET", `/original_data?deviceID=26011B05`)).body as {
          dataPointIntID: number;
          originalData: { value: number[] };
        }[]
      ).find((o) => o.dataPointIntID === temp.id)?.originalData.value ?? [];
    await expect.poll(values, { timeout: 15_000 }).toEqual([21.5]);
    expect(d.id).toBeGreaterThan(0);
  });

  it("sends a class C device's downlink at once on RX2", async () => {
    const { id, sim } = await abpDevice("26011B04", { classC: true });
    await forwarders[2]!.push({ data: sim.uplink({ payload: "hello" }) });
    await expect.poll(async () => (await events(id)).length, { timeout: 10_000 }).toBe(1);
    await t.api("POST", "/device_publish", { deviceID: "26011B04", deviceIntID: id, payload: "on", topic: "dn/2" });
    const d = await forwarders[2]!.nextDownlink(5_000);
    expect(d.txpk.imme).toBe(true);
    expect(d).toMatchObject({ freq: 869.525, datr: "SF12BW125" });
    const got = sim.handleDownlink(d.data);
    expect(got.ok && got.value.payload.toString()).toBe("on");
  });
});
