/**
 * Fault injection: kill -9 of the LoRaWAN network server under confirmed-uplink load, started again. What
 * acknowledges an uplink to a LoRaWAN device is the ACK bit of a downlink in its receive windows (the gateway's
 * PUSH_ACK only says the datagram arrived). Afterwards every uplink a device saw ACKed is stored, no frame counter
 * is stored twice, and the restarted process serves again.
 */
import { SimulatedForwarder, SimulatedLoraDevice } from "@iot/adapter-lorawan";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectStoredOnce, loraLoad, moreAcks } from "./device-load.js";
import { freePort } from "./helpers.js";
import { killHard, startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";

const NWK = "44024241ED4CE9A68C6A8BC055233FD3";
const APP = "EC925802AE430CA77FD3DD73CB2CC588";

let f: RestartableFleet;
let loraPort = 0;

beforeAll(async () => {
  loraPort = await freePort();
  f = await startRestartableFleet({ IOT_LORA_UDP_PORT: String(loraPort), IOT_LORA_DEV_STATUS_EVERY: "0" }, [
    "lorawan-adapter",
  ]);
}, 60_000);
afterAll(async () => {
  await f?.close();
});

async function ok(method: string, path: string, body?: unknown) {
  const r = await f.api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Every stored uplink of device `id` (pages of 1000) with the frame counter its metadata carries. */
async function storedFCnts(id: number): Promise<number[]> {
  const fcnts: number[] = [];
  for (let page = 1; ; page++) {
    const items = (await ok("GET", `/devices/${id}/events?_limit=1000&_page=${page}`)).items as Array<{
      topic: string;
      metadata?: { fCnt?: number };
    }>;
    fcnts.push(...items.filter((e) => e.topic.startsWith("up/")).map((e) => e.metadata!.fCnt!));
    if (items.length < 1000) return fcnts;
  }
}

describe("kill -9 of the lorawan-adapter under confirmed uplinks", () => {
  let productID = "";
  let gatewayN = 0;
  /** A gateway record and its simulated forwarder (PULL_DATA every 300 ms), and an ABP device behind it. */
  async function field(devAddr: string) {
    productID ||= (await ok("POST", "/products", { productName: "lora", cloudProtocol: 4 })).productID;
    const eui = `AA555A00000003${String(++gatewayN).padStart(2, "0")}`;
    const gw = await ok("POST", "/gateways", {
      productID,
      gatewayName: eui,
      gatewayProtocol: 4,
      authType: 1,
      deviceID: eui,
    });
    const device = await ok("POST", "/devices", {
      productID,
      deviceName: `abp ${devAddr}`,
      deviceID: devAddr,
      upLinkSystem: 2,
      gateway: gw.id,
      lora: { type: "abp", region: "EU868", nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0, fcntCheck: 1 },
    });
    const fwd = new SimulatedForwarder({ gatewayEui: eui, port: loraPort, keepaliveMs: 300 });
    await fwd.start();
    fwd.startKeepalive();
    return { eui, fwd, device, sim: new SimulatedLoraDevice({ abp: { devAddr, nwkSKey: NWK, appSKey: APP } }) };
  }

  // The kill comes as soon as the frames are stored, maybe before the registry's ack and the counters that follow
  // it reached the old process: the new one may resume from an older counter, and the store's frame key catches it.
  it("stores a replay of the last stored frame once after a restart that came before the counters' report", async () => {
    const { fwd, device, sim } = await field("26012D01");
    try {
      for (const p of ["r1", "r2", "r3"]) await fwd.push({ data: sim.uplink({ payload: p }) });
      await expect.poll(async () => (await storedFCnts(device.id)).length, { timeout: 10_000 }).toBe(3);
      await killHard(f.adapters.get("lorawan-adapter")!);
      const restarted = await f.startAdapter("lorawan-adapter");
      await fwd.push({ data: sim.replay(1) }); // FCnt 2 again: a replay, or a retransmission the old process stored
      await fwd.push({ data: sim.uplink({ payload: "r4" }) });
      await expect.poll(async () => (await storedFCnts(device.id)).length, { timeout: 10_000 }).toBeGreaterThan(3);
      await quietFor(500, "a second copy would be stored within this");
      expect((await storedFCnts(device.id)).sort()).toEqual([0, 1, 2, 3]);
      expect(restarted.child.exitCode).toBeNull();
    } finally {
      await fwd.close();
    }
  }, 30_000);

  // The central node is paused (SIGSTOP): the stream stays open, but nothing is stored or acknowledged.
  it("sends no ACK for a confirmed uplink the registry has not stored: a kill then loses nothing ACKed", async () => {
    const { fwd, device, sim } = await field("26012D02");
    const central = f.central.child;
    try {
      await fwd.push({ data: sim.uplink({ payload: "c0", confirmed: true }) });
      expect(sim.handleDownlink((await fwd.nextDownlink(3_000)).data)).toMatchObject({
        ok: true,
        value: { ack: true },
      });
      central.kill("SIGSTOP");
      const frame = sim.uplink({ payload: "c1", confirmed: true });
      await fwd.push({ data: frame });
      const answer = await fwd.nextDownlink(2_500).catch(() => undefined); // RX2 is 2 s after the uplink
      const acked = !!answer && sim.handleDownlink(answer.data).ok && sim.lastConfirmedAcked;
      await killHard(f.adapters.get("lorawan-adapter")!);
      central.kill("SIGCONT");
      await f.startAdapter("lorawan-adapter");
      const payloads = async () =>
        ((await ok("GET", `/devices/${device.id}/events`)).items as Array<{ payload: string }>).map((e) => e.payload);
      if (acked) expect(await payloads()).toContain("c1"); // what the device saw ACKed must be stored
      // Not ACKed: the device retransmits the frame, which the new process stores (once, even if the paused node
      // still stored the copy the old process had sent it).
      await fwd.push({ data: frame });
      await expect.poll(payloads, { timeout: 10_000 }).toContain("c1");
      await quietFor(500, "a second copy would be stored within this");
      expect((await payloads()).filter((p) => p === "c1")).toEqual(["c1"]);
      expect(acked).toBe(false);
    } finally {
      central.kill("SIGCONT");
      await fwd.close();
    }
  }, 45_000);

  it("loses no uplink the device saw ACKed, stores no frame counter twice, and serves again", async () => {
    const productID = (await ok("POST", "/products", { productName: "lora", cloudProtocol: 4 })).productID;
    const gateway = async (eui: string) =>
      ok("POST", "/gateways", { productID, gatewayName: eui, gatewayProtocol: 4, authType: 1, deviceID: eui });
    const abp = async (devAddr: string, gw: number) => {
      const d = await ok("POST", "/devices", {
        productID,
        deviceName: `abp ${devAddr}`,
        deviceID: devAddr,
        upLinkSystem: 2,
        gateway: gw,
        lora: { type: "abp", region: "EU868", nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0, fcntCheck: 1 },
      });
      return { device: d, sim: new SimulatedLoraDevice({ abp: { devAddr, nwkSKey: NWK, appSKey: APP } }) };
    };
    const gw1 = await gateway("AA555A0000000201");
    const gw2 = await gateway("AA555A0000000202");
    const confirmed = await abp("26012C01", gw1.id);
    const plain = await abp("26012C02", gw2.id);
    const load = await loraLoad(loraPort, "AA555A0000000201", confirmed.sim, "26012C01");
    // A second device sending unconfirmed uplinks (nothing acknowledges those) every 100 ms, PUSH_ACK or not.
    const fwd = new SimulatedForwarder({ gatewayEui: "AA555A0000000202", port: loraPort, keepaliveMs: 300 });
    await fwd.start();
    fwd.startKeepalive();
    let sending = true;
    const unconfirmed = (async () => {
      for (let i = 0; sending; i++) {
        await fwd.push({ data: plain.sim.uplink({ payload: `plain-${i}` }) }).catch(() => undefined);
        await quietFor(100, "the device sends every 100 ms");
      }
    })();
    try {
      await moreAcks([load], 5);
      const before = (await storedFCnts(plain.device.id)).length;
      await killHard(f.adapters.get("lorawan-adapter")!);
      await quietFor(300, "the device goes on sending while the adapter is down");
      const restarted = await f.startAdapter("lorawan-adapter");
      await moreAcks([load], 5);
      // The unconfirmed device's uplinks are stored again through the new process.
      await expect
        .poll(async () => (await storedFCnts(plain.device.id)).length, { timeout: 10_000 })
        .toBeGreaterThan(before + 3);
      await expectStoredOnce((m, p) => f.api(m, p), [{ device: confirmed.device, load }]);
      sending = false;
      await unconfirmed;
      for (const d of [confirmed, plain]) {
        const fcnts = await storedFCnts(d.device.id);
        expect(fcnts.length - new Set(fcnts).size, `FCnts stored twice: ${fcnts.sort((a, b) => a - b).join()}`).toBe(0);
      }
      expect(restarted.child.exitCode).toBeNull();
    } finally {
      sending = false;
      await unconfirmed;
      await fwd.close();
    }
  }, 60_000);
});
