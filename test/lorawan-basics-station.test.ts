/**
 * LoRa Basics Station gateways end to end: the central node and the LoRaWAN adapter as processes on real ports, a
 * simulated Basics Station (written from the LNS protocol documentation) over a real WebSocket, a simulated packet
 * forwarder on UDP beside it, simulated LoRaWAN devices, records made through the REST API.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedBasicsStation, SimulatedForwarder, SimulatedLoraDevice } from "@iot/adapter-lorawan";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

const STATION_EUI = "B827EBFFFE000001";
const STATION2_EUI = "B827EBFFFE000002";
const UDP_EUI = "AA555A0000000201";
const TOKEN = "Bearer station-secret-1";
const APP_KEY = "2B7E151628AED2A6ABF7158809CF4F3C";
const NWK = "44024241ED4CE9A68C6A8BC055233FD3";
const APP = "EC925802AE430CA77FD3DD73CB2CC588";

let t: TestFleet;
let basicsUrl = "";
let productID = "";
let gatewayId = 0;
let station: SimulatedBasicsStation;
let forwarder: SimulatedForwarder;

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
    metadata?: { fCnt: number; frequency: number; gateways: { gatewayEui: string; rssi: number; snr: number }[] };
  }[];
const controlStatus = async (id: number) =>
  String(
    ((await t.api("GET", `/devices/${id}/control_logs`)).body.items as { publishStatus: unknown }[])[0]?.publishStatus,
  );
const gateway = (eui: string) =>
  ok(t.api, "POST", "/gateways", {
    productID,
    gatewayName: `gw ${eui}`,
    gatewayProtocol: 4,
    authType: 1,
    deviceID: eui,
  });
async function abpDevice(devAddr: string) {
  const d = await ok(t.api, "POST", "/devices", {
    productID,
    deviceName: `abp ${devAddr}`,
    deviceID: devAddr,
    upLinkSystem: 2,
    gateway: gatewayId,
    lora: { type: "abp", region: "EU868", nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0, fcntCheck: 1 },
  });
  return { id: d.id as number, sim: new SimulatedLoraDevice({ abp: { devAddr, nwkSKey: NWK, appSKey: APP } }) };
}

beforeAll(async () => {
  t = await startTestFleet(
    {
      IOT_LORA_UDP_PORT: "0",
      IOT_LORA_BASICS_PORT: "0",
      IOT_LORA_BASICS_TOKEN: TOKEN,
      IOT_LORA_DEV_STATUS_EVERY: "0",
    },
    { adapters: ["lorawan-adapter"] },
  );
  const adapter = t.fleet.adapters.find((a) => a.name === "lorawan-adapter")!;
  basicsUrl = reachable(adapter.urls.basics!);
  productID = (await ok(t.api, "POST", "/products", { productName: "Sensors", cloudProtocol: 4 })).productID;
  gatewayId = (await gateway(STATION_EUI)).id;
  await gateway(STATION2_EUI);
  await gateway(UDP_EUI);
  station = new SimulatedBasicsStation({ routerEui: STATION_EUI, url: basicsUrl, token: TOKEN });
  await station.connect();
  forwarder = new SimulatedForwarder({
    gatewayEui: UDP_EUI,
    port: Number(new URL(adapter.urls.lorawan!).port),
    keepaliveMs: 0,
  });
  await forwarder.start();
  await forwarder.pull();
}, 90_000);

afterAll(async () => {
  await station?.close();
  await forwarder?.close();
  await t?.close();
});

describe("LoRa Basics Station gateways", () => {
  it("answers discovery with the data URI of a registered router, and an error for an unknown or malformed one", async () => {
    const known = await station.discover("b827:ebff:fe00:1");
    expect(known).toMatchObject({
      router: "b827:ebff:fe00:1",
      uri: `${basicsUrl}/router-${STATION_EUI.toLowerCase()}`,
    });
    expect(await station.discover("01-02-03-04-05-06-07-08")).toMatchObject({
      error: expect.stringMatching(/unknown gateway/),
    });
    expect(await station.discover("not an eui")).toMatchObject({ error: expect.stringMatching(/EUI or ID6/) });
  });

  it("refuses a station whose Authorization is not the configured token", async () => {
    const stranger = new SimulatedBasicsStation({ routerEui: STATION2_EUI, url: basicsUrl, token: "Bearer wrong" });
    await expect(stranger.discover()).rejects.toThrow(/401/);
  });

  it("answers version with the region's router_config", () => {
    const rc = station.routerConfig!;
    expect(rc).toMatchObject({
      msgtype: "router_config",
      region: "EU868",
      hwspec: "sx1301/1",
      freq_range: [863e6, 870e6],
    });
    const drs = rc.DRs as number[][];
    expect(drs).toHaveLength(16);
    expect(drs[0]).toEqual([12, 125, 0]);
    expect(drs[5]).toEqual([7, 125, 0]);
    const conf = (
      rc.sx1301_conf as Record<string, { enable: boolean; radio?: number; if?: number; freq?: number }>[]
    )[0]!;
    const freqs = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => {
      const c = conf[`chan_multiSF_${i}`]!;
      return conf[`radio_${c.radio}`]!.freq! + c.if!;
    });
    expect(freqs.sort()).toEqual([867.1, 867.3, 867.5, 867.7, 867.9, 868.1, 868.3, 868.5].map((m) => m * 1e6));
  });

  it("admits an OTAA join from a jreq: the join-accept dnmsg echoes the uplink's xtime for RX1 and the device decrypts it", async () => {
    await ok(t.api, "POST", "/devices", {
      productID,
      deviceName: "bs tracker",
      deviceID: "70B3D57ED0000B01",
      upLinkSystem: 1,
      lora: { type: "otaa", appEUI: "70B3D57ED0000000", appKey: APP_KEY, fcntCheck: 1, canJoin: true, region: "EU868" },
    });
    const sim = new SimulatedLoraDevice({
      otaa: { devEui: "70B3D57ED0000B01", appEui: "70B3D57ED0000000", appKey: APP_KEY },
    });
    const up = station.uplink(sim.joinRequest(), { freqHz: 868_300_000, dr: 5 });
    expect(up.xtime > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    const d = await station.nextDownlink(8_000);
    expect(d.msg).toMatchObject({
      msgtype: "dnmsg",
      dC: 0,
      RxDelay: 5,
      RX1DR: 5,
      RX1Freq: 868_300_000,
      RX2DR: 0,
      RX2Freq: 869_525_000,
    });
    expect(d.msg.DevEui).toBe("70-B3-D5-7E-D0-00-0B-01");
    expect(d.msg.xtime).toBe(up.xtime);
    expect(d.window).toBe("rx1");
    expect(d.txXtime).toBe(up.xtime + 5_000_000n);
    expect(sim.handleJoinAccept(d.pdu).ok).toBe(true);
  });

  it("stores a updf uplink with the station's radio metadata, and a confirmed command goes out in RX1 with the uplink's xtime", async () => {
    const { id, sim } = await abpDevice("26012B01");
    station.uplink(sim.uplink({ fPort: 2, payload: "t=20" }), { freqHz: 868_500_000, dr: 3, rssi: -97, snr: 2.5 });
    await expect.poll(async () => (await events(id)).length, { timeout: 10_000 }).toBe(1);
    const [e] = await events(id);
    expect(e).toMatchObject({ topic: "up/2", payload: "t=20" });
    expect(e!.metadata).toMatchObject({
      frequency: 868.5,
      dataRate: "SF9BW125",
      gateways: [{ gatewayEui: STATION_EUI.toLowerCase(), rssi: -97, snr: 2.5 }],
    });

    const pub = await t.api("POST", "/device_publish", {
      deviceID: "26012B01",
      deviceIntID: id,
      payload: "go",
      topic: "dn/7/confirmed",
    });
    expect(pub.status).toBe(201);
    // The command reaches the adapter asynchronously: poll with uplinks until the answer carries it.
    let got: { fPort: number | null; confirmed: boolean; payload: Buffer } | undefined;
    await expect
      .poll(
        async () => {
          const up = station.uplink(sim.uplink({ payload: "poll" }), { freqHz: 868_100_000, dr: 5 });
          const d = await station.nextDownlink(5_000).catch(() => undefined);
          if (!d) return false;
          expect(d.msg).toMatchObject({ RxDelay: 1, RX1DR: 5, RX1Freq: 868_100_000 });
          expect(d.msg.xtime).toBe(up.xtime);
          expect(d.window).toBe("rx1");
          const r = sim.handleDownlink(d.pdu);
          if (!r.ok) throw new Error(r.reason);
          got = r.value;
          return got.fPort === 7;
        },
        { timeout: 20_000, interval: 50 },
      )
      .toBe(true);
    expect(got).toMatchObject({ confirmed: true, payload: Buffer.from("go") });
    station.uplink(sim.uplink({ payload: "ack" }));
    await expect.poll(() => controlStatus(id), { timeout: 10_000 }).toBe("2");
  });

  it("answers timesync with the GPS time and passes txtime back", async () => {
    const gpsNow = BigInt(Date.now() - Date.UTC(1980, 0, 6) + 18_000) * 1000n;
    const ts = await station.timesync();
    expect(ts.gpstime - gpsNow < 5_000_000n && gpsNow - ts.gpstime < 5_000_000n).toBe(true);
  });

  it("deduplicates a frame a Basics Station and a UDP packet forwarder both heard: one uplink, both gateways", async () => {
    const { id, sim } = await abpDevice("26012B02");
    const frame = sim.uplink({ payload: "both" });
    station.uplink(frame, { rssi: -80, snr: 3 });
    await forwarder.push({ data: frame, rssi: -70, lsnr: 9 });
    await expect.poll(async () => (await events(id)).length, { timeout: 10_000 }).toBe(1);
    const [e] = await events(id);
    expect(e!.metadata!.gateways).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ gatewayEui: STATION_EUI.toLowerCase(), rssi: -80, snr: 3 }),
        expect.objectContaining({ gatewayEui: UDP_EUI.toLowerCase(), rssi: -70, snr: 9 }),
      ]),
    );
    expect(e!.metadata!.gateways).toHaveLength(2);
    // Neither copy comes back as a second uplink.
    station.uplink(sim.uplink({ payload: "next" }));
    await expect
      .poll(async () => (await events(id)).map((x) => x.payload), { timeout: 10_000 })
      .toEqual(["next", "both"]);
  });

  it("closes only the connection of a station that sends a malformed message", async () => {
    const other = new SimulatedBasicsStation({ routerEui: STATION2_EUI, url: basicsUrl, token: TOKEN });
    await other.connect();
    other.sendRaw("{ this is not json");
    expect(await other.closed).toMatchObject({ code: 1007 });
    const bad = new SimulatedBasicsStation({ routerEui: STATION2_EUI, url: basicsUrl, token: TOKEN });
    await bad.connect();
    bad.send({ msgtype: "updf", DR: 5, Freq: 868_100_000 });
    expect(await bad.closed).toMatchObject({ code: 1007, reason: expect.stringMatching(/updf/) });
    const { id, sim } = await abpDevice("26012B03");
    station.uplink(sim.uplink({ payload: "still here" }));
    await expect.poll(async () => (await events(id)).length, { timeout: 10_000 }).toBe(1);
  });
});
