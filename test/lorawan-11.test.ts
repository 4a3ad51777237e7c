/**
 * LoRaWAN 1.1 end to end: the central node and the LoRaWAN adapter as processes on real ports, a simulated packet
 * forwarder and simulated devices on real UDP sockets, records made through the REST API. A 1.1 device joins,
 * confirms its keys (RekeyInd/RekeyConf), has its uplinks stored and gets a confirmed command, beside a 1.0.x
 * device; the registry's gRPC contract keeps the 1.1 session and the nonce rules.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAdapterLogger,
  createGrpcRegistryClient,
  type LoraDeviceInfo,
  type RegistryClient,
} from "@iot/adapter-core";
import { SimulatedForwarder, SimulatedLoraDevice, SimulatedLoraDevice11 } from "@iot/adapter-lorawan";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";
import { pendingLoraCommands } from "./lora-metrics.js";

const GW = "AA555A0000001101";
const JOIN_EUI = "70B3D57ED0001100";
const APP_KEY = "2B7E151628AED2A6ABF7158809CF4F3C";
const NWK_KEY = "000102030405060708090A0B0C0D0E0F";

let t: TestFleet;
let port = 0;
let productID = "";
let forwarder: SimulatedForwarder;

type Api = TestFleet["api"];
async function ok(api: Api, method: string, path: string, body?: unknown) {
  const r = await api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
const events = async (id: number) =>
  ((await t.api("GET", `/devices/${id}/events?_limit=50`)).body.items as { topic: string; payload: string }[]).filter(
    (e) => e.topic.startsWith("up/"),
  );
const controlStatus = async (id: number) =>
  String(
    ((await t.api("GET", `/devices/${id}/control_logs`)).body.items as { publishStatus: unknown }[])[0]?.publishStatus,
  );
const otaa = (deviceID: string, lora: Record<string, unknown> = {}) =>
  ok(t.api, "POST", "/devices", {
    productID,
    deviceName: `otaa ${deviceID.slice(-2)}`,
    deviceID,
    upLinkSystem: 1,
    lora: { type: "otaa", appEUI: JOIN_EUI, appKey: APP_KEY, fcntCheck: 1, canJoin: true, region: "EU868", ...lora },
  });

/** Sends a 1.1 device's next uplink through the forwarder on the channel and data rate its MIC covers. */
async function up11(sim: SimulatedLoraDevice11, ...args: Parameters<SimulatedLoraDevice11["uplink"]>) {
  const data = sim.uplink(...args);
  await forwarder.push({ data, ...sim.lastRadio });
}

beforeAll(async () => {
  t = await startTestFleet(
    { IOT_LORA_UDP_PORT: "0", IOT_LORA_DEV_STATUS_EVERY: "0", IOT_LORAWAN_METRICS_PORT: "0" },
    { adapters: ["lorawan-adapter"] },
  );
  const adapter = t.fleet.adapters.find((a) => a.name === "lorawan-adapter")!;
  port = Number(new URL(adapter.urls.lorawan!).port);
  productID = (await ok(t.api, "POST", "/products", { productName: "1.1 sensors", cloudProtocol: 4 })).productID;
  await ok(t.api, "POST", "/gateways", { productID, gatewayName: "gw", gatewayProtocol: 4, authType: 1, deviceID: GW });
  forwarder = new SimulatedForwarder({ gatewayEui: GW, port, keepaliveMs: 0 });
  await forwarder.start();
  await forwarder.pull();
}, 90_000);

afterAll(async () => {
  await forwarder?.close();
  await t?.close();
});

describe("LoRaWAN 1.1 through the adapter", () => {
  it("joins a 1.1 device, stores its uplinks, and delivers a confirmed command, beside a 1.0.x device", async () => {
    const d11 = await otaa("70B3D57ED0001101", { macVersion: "1.1", nwkKey: NWK_KEY });
    const d10 = await otaa("70B3D57ED0001102");
    const sim11 = new SimulatedLoraDevice11({
      devEui: "70B3D57ED0001101",
      joinEui: JOIN_EUI,
      appKey: APP_KEY,
      nwkKey: NWK_KEY,
    });
    const sim10 = new SimulatedLoraDevice({ otaa: { devEui: "70B3D57ED0001102", appEui: JOIN_EUI, appKey: APP_KEY } });

    await forwarder.push({ data: sim11.joinRequest() });
    const accept11 = sim11.handleJoinAccept((await forwarder.nextDownlink(8_000)).data);
    expect(accept11).toMatchObject({ ok: true, value: { joinNonce: 0 } });
    await forwarder.push({ data: sim10.joinRequest() });
    expect(sim10.handleJoinAccept((await forwarder.nextDownlink(8_000)).data).ok).toBe(true);

    // The first uplink carries RekeyInd: the answer confirms 1.1 on NFCntDown.
    await up11(sim11, { fPort: 2, payload: "t=20.5" });
    const rekey = sim11.handleDownlink((await forwarder.nextDownlink(5_000)).data);
    expect(rekey).toMatchObject({ ok: true, value: { counter: "nFCntDown", macCommands: [{ type: "RekeyConf" }] } });
    expect(sim11.rekeyPending).toBe(false);
    await forwarder.push({ data: sim10.uplink({ fPort: 2, payload: "v1.0" }) });
    await up11(sim11, { fPort: 2, payload: "t=20.7" });
    await expect
      .poll(async () => (await events(d11.id)).map((e) => e.payload).sort(), { timeout: 10_000 })
      .toEqual(["t=20.5", "t=20.7"]);
    await expect.poll(async () => (await events(d10.id)).map((e) => e.payload), { timeout: 10_000 }).toEqual(["v1.0"]);

    // DeviceTimeReq (1.0.3+) through a GPS gateway: the answer is the gateway's GPS time of reception.
    const tmms = 1_418_000_000_750;
    await forwarder.push({ data: sim10.uplink({ macCommands: [{ type: "DeviceTimeReq" }] }), tmms });
    expect(sim10.handleDownlink((await forwarder.nextDownlink(5_000)).data).ok).toBe(true);
    expect(sim10.deviceTime).toEqual({ gpsSeconds: 1_418_000_000, fraction: 192 });

    const pub = await t.api("POST", "/device_publish", {
      deviceID: "70B3D57ED0001101",
      deviceIntID: d11.id,
      payload: "hex:0a0b",
      topic: "dn/9/confirmed",
    });
    expect(pub.status).toBe(201);
    // The command has reached the adapter, which holds it for the device's next uplink.
    await expect.poll(() => pendingLoraCommands(t), { timeout: 5_000 }).toBe(1);
    await up11(sim11, { fPort: 2, payload: "poll" });
    const got = sim11.handleDownlink((await forwarder.nextDownlink(5_000)).data);
    expect(got).toMatchObject({ ok: true, value: { fPort: 9, counter: "aFCntDown", fcnt: 0, confirmed: true } });
    expect(got.ok && got.value.payload).toEqual(Buffer.from([0x0a, 0x0b]));
    await up11(sim11, { fPort: 2, payload: "ack" });
    await expect.poll(() => controlStatus(d11.id), { timeout: 10_000 }).toBe("2");
  });
});

describe("the registry's 1.1 session contract (gRPC)", () => {
  let registry: RegistryClient;
  beforeAll(() => {
    registry = createGrpcRegistryClient({
      address: reachable(t.fleet.central.urls.grpc!),
      protocol: "lora",
      logger: createAdapterLogger("lora11-test", "silent"),
      token: t.fleet.registryToken,
    });
    registry.start();
  });
  afterAll(() => registry?.close());

  const lorawan11 = (joinNonce: number) => ({
    fNwkSIntKey: NWK_KEY,
    sNwkSIntKey: APP_KEY,
    nwkSEncKey: NWK_KEY,
    nFCntDown: 0,
    aFCntDown: 0,
    joinNonce,
  });
  const loraOf = async (devEui: string) => {
    const a = await registry.authenticate("lora", { kind: "lora", devEui, devAddr: "" }, "");
    if (!a.ok) throw new Error(a.message);
    return a.session.lora as LoraDeviceInfo;
  };

  it("keeps the 1.1 keys and the next JoinNonce, refuses nonces that do not increase, and raises both downlink counters", async () => {
    const d = await otaa("70B3D57ED0001103", { macVersion: "1.1", nwkKey: NWK_KEY });
    const session = { devAddr: "26AA1103", nwkSKey: NWK_KEY, appSKey: APP_KEY, lorawan11: lorawan11(4) };
    expect(await registry.loraActivate(d.id, 10, session)).toEqual({ result: "OK", message: "" });
    expect(await loraOf("70b3d57ed0001103")).toMatchObject({
      nextJoinNonce: 5,
      session: { devAddr: "26AA1103", lorawan11: { sNwkSIntKey: APP_KEY, joinNonce: 4, nFCntDown: 0 } },
    });
    const again = (devNonce: number, joinNonce: number) =>
      registry.loraActivate(d.id, devNonce, { ...session, lorawan11: lorawan11(joinNonce) });
    expect(await again(9, 5)).toMatchObject({ result: "DEV_NONCE_REUSED", message: expect.stringMatching(/increase/) });
    expect(await again(11, 4)).toMatchObject({
      result: "DEV_NONCE_REUSED",
      message: expect.stringMatching(/JoinNonce/),
    });
    // A Rejoin-Request's session: its RJcount is no DevNonce, the JoinNonce still has to increase.
    const rejoin = (joinNonce: number) => ({ ...session, lorawan11: { ...lorawan11(joinNonce), rejoin: true } });
    expect(await registry.loraActivate(d.id, 0, rejoin(5))).toEqual({ result: "OK", message: "" });
    expect((await registry.loraActivate(d.id, 1, rejoin(5))).result).toBe("DEV_NONCE_REUSED");
    expect(await loraOf("70b3d57ed0001103")).toMatchObject({ nextJoinNonce: 6, usedDevNonces: [10] });
    registry.reportLoraCounters([{ deviceIntId: d.id, fcntUp: 3, fcntDown: 7 }]);
    await expect
      .poll(async () => (await loraOf("70b3d57ed0001103")).session?.lorawan11, { timeout: 5_000 })
      .toMatchObject({ nFCntDown: 7, aFCntDown: 7 });
  });
});
