/**
 * LoRaWAN class B end to end: the central node and the LoRaWAN adapter as processes on real ports, two simulated
 * packet forwarders (one reporting GPS time, one not) and a simulated Basics Station with GPS time, simulated class B
 * devices on real sockets, the devices made through the REST API.
 */
import { createCipheriv } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedBasicsStation, SimulatedForwarder, SimulatedLoraDevice } from "@iot/adapter-lorawan";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

const GPS_GW = "AA555A0000000B01";
const PLAIN_GW = "AA555A0000000B02";
const STATION = "AA555A0000000B03";
const NWK = "44024241ED4CE9A68C6A8BC055233FD3";
const APP = "EC925802AE430CA77FD3DD73CB2CC588";
/** The network server's default scheduling margin (scheduleMarginMs), ms. */
const MARGIN_MS = 150;

let t: TestFleet;
let productID = "";
let gatewayId = 0;
const forwarders: Record<string, SimulatedForwarder> = {};
let station: SimulatedBasicsStation;

/** GPS time in ms now: since 1980-01-06, 18 leap seconds ahead of UTC. */
const gpsNow = () => Date.now() - Date.UTC(1980, 0, 6) + 18_000;

/** The specification's first ping slot at or after `gpsMs` (LoRaWAN 1.0.4 §13.2), written out independently. */
function specSlot(gpsMs: number, devAddr: string, periodicity: number): number {
  const period = 2 ** (5 + periodicity);
  for (let beacon = Math.floor(gpsMs / 128_000) * 128_000; ; beacon += 128_000) {
    const block = Buffer.alloc(16);
    block.writeUInt32LE(beacon / 1000, 0);
    block.writeUInt32LE(parseInt(devAddr, 16), 4);
    const rand = createCipheriv("aes-128-ecb", Buffer.alloc(16), null).setAutoPadding(false).update(block);
    const offset = (rand[0]! + 256 * rand[1]!) % period;
    for (let n = 0; n < 4096 / period; n++) {
      const slot = beacon + 2120 + (offset + n * period) * 30;
      if (slot >= gpsMs) return slot;
    }
  }
}

const device = (devAddr: string, lora: Record<string, unknown>) =>
  t.api("POST", "/devices", {
    productID,
    deviceName: `class B ${devAddr}`,
    deviceID: devAddr,
    upLinkSystem: 2,
    gateway: gatewayId,
    lora: { type: "abp", region: "EU868", nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0, fcntCheck: 1, ...lora },
  });

beforeAll(async () => {
  t = await startTestFleet(
    { IOT_LORA_UDP_PORT: "0", IOT_LORA_BASICS_PORT: "0", IOT_LORA_DEV_STATUS_EVERY: "0" },
    { adapters: ["lorawan-adapter"] },
  );
  const adapter = t.fleet.adapters.find((a) => a.name === "lorawan-adapter")!;
  const port = Number(new URL(adapter.urls.lorawan!).port);
  productID = (await t.api("POST", "/products", { productName: "Class B", cloudProtocol: 4 })).body.productID;
  for (const eui of [GPS_GW, PLAIN_GW, STATION]) {
    const g = await t.api("POST", "/gateways", {
      productID,
      gatewayName: eui,
      gatewayProtocol: 4,
      authType: 1,
      deviceID: eui,
    });
    expect(g.status, JSON.stringify(g.body)).toBe(201);
    gatewayId ||= g.body.id;
    if (eui === STATION) continue;
    const f = new SimulatedForwarder({ gatewayEui: eui, port, keepaliveMs: 0 });
    await f.start();
    await f.pull();
    forwarders[eui] = f;
  }
  station = new SimulatedBasicsStation({ routerEui: STATION, url: reachable(adapter.urls.basics!) });
  await station.connect();
}, 90_000);

afterAll(async () => {
  await station?.close();
  await Promise.all(Object.values(forwarders).map((f) => f.close()));
  await t?.close();
});

describe("LoRaWAN class B", () => {
  it.each([
    [{ classB: "yes" }, "lora.classB", /true or false/],
    [{ classB: true, classC: true }, "lora.classB", /not both/],
    [{ classB: true, pingSlotPeriodicity: 8 }, "lora.pingSlotPeriodicity", /0 to 7/],
  ])("refuses lora %o with a 400 naming %s", async (lora, field, reason) => {
    const r = await device("26011BB9", lora);
    expect(r.status).toBe(400);
    expect(r.body.errors[field]).toMatch(reason);
  });

  it("sends a command at the device's next ping slot through the gateway that reported GPS time", async () => {
    const devAddr = "26011BB1";
    const d = await device(devAddr, { classB: true });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const sim = new SimulatedLoraDevice({ abp: { devAddr, nwkSKey: NWK, appSKey: APP } });
    // The device switched to class B (ClassB bit) and asks for a ping slot every 0.96 s (periodicity 0).
    const up = sim.uplink({ payload: "b", classB: true, macCommands: [{ type: "PingSlotInfoReq", periodicity: 0 }] });
    // The gateway without GPS hears it better; only the GPS one can send at a ping slot.
    await forwarders[PLAIN_GW]!.push({ data: up, lsnr: 9 });
    await forwarders[GPS_GW]!.push({ data: up, lsnr: -3, tmms: gpsNow() });
    const answer = await forwarders[PLAIN_GW]!.nextDownlink(5_000);
    const answered = sim.handleDownlink(answer.data);
    expect(answered.ok && answered.value.macCommands).toEqual([{ type: "PingSlotInfoAns" }]);

    const before = gpsNow();
    const published = await t.api("POST", "/device_publish", {
      deviceID: devAddr,
      deviceIntID: d.body.id,
      payload: "ping",
      topic: "dn/4",
    });
    expect(published.status, JSON.stringify(published.body)).toBeLessThan(300);
    const ping = await forwarders[GPS_GW]!.nextDownlink(5_000);
    const after = gpsNow();
    expect(ping.txpk).toMatchObject({ freq: 869.525, datr: "SF9BW125", ipol: true });
    expect(ping.txpk.tmst).toBeUndefined();
    // The server read the clock between `before` and `after`: the slot is the first at or after that + margin.
    const expected = [before, after].map((g) => specSlot(g + MARGIN_MS, devAddr, 0));
    expect(expected).toContain(ping.txpk.tmms);
    const got = sim.handleDownlink(ping.data);
    expect(got.ok && got.value.payload.toString()).toBe("ping");
  });

  it("sends a command to a device heard by a Basics Station with GPS time as a dnmsg with dC 1 at its ping slot", async () => {
    const devAddr = "26011BB2";
    // The record's periodicity: a ping slot every 0.96 s (the device sends no PingSlotInfoReq).
    const d = await device(devAddr, { classB: true, pingSlotPeriodicity: 0 });
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const sim = new SimulatedLoraDevice({ abp: { devAddr, nwkSKey: NWK, appSKey: APP } });
    station.uplink(sim.uplink({ payload: "b", classB: true }), { gpstime: BigInt(gpsNow()) * 1000n });
    const stored = async () => (await t.api("GET", `/devices/${d.body.id}/events`)).body.items.length as number;
    await expect.poll(stored, { timeout: 10_000 }).toBe(1);

    const before = gpsNow();
    await t.api("POST", "/device_publish", { deviceID: devAddr, deviceIntID: d.body.id, payload: "b!", topic: "dn/4" });
    const ping = await station.nextDownlink(5_000);
    const after = gpsNow();
    expect(ping).toMatchObject({ window: "classB", freqHz: 869_525_000, dr: 3, msg: { dC: 1 } });
    const expected = [before, after].map((g) => BigInt(specSlot(g + MARGIN_MS, devAddr, 0)) * 1000n);
    expect(expected).toContain(ping.gpstime);
    const got = sim.handleDownlink(ping.pdu);
    expect(got.ok && got.value.payload.toString()).toBe("b!");
  });
});
