/**
 * Fault injection: kill -9 of the central node, then of each device adapter, while devices publish (MQTT QoS 1,
 * confirmable CoAP, HTTP POSTs), and the killed process started again. Afterwards every message a device had
 * acknowledged is stored, none is stored twice, every process serves again, and the logs say what happened.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable } from "../scripts/fleet.js";
import { checkStored, coapLoad, httpLoad, mqttLoad, type DeviceLoad } from "./device-load.js";
import type { TestDevice } from "./helpers.js";
import { killHard, startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";

const ADAPTERS = ["mqtt-adapter", "coap-adapter", "http-adapter"] as const;
/** cloudProtocol of each adapter's devices. */
const PROTOCOL = { "mqtt-adapter": 1, "coap-adapter": 2, "http-adapter": 5 } as const;

let f: RestartableFleet;
const devices = new Map<string, TestDevice>();
let n = 0;

beforeAll(async () => {
  f = await startRestartableFleet({ IOT_LOG_LEVEL: "warn" }, ADAPTERS);
  for (const a of ADAPTERS) {
    const product = (await f.api("POST", "/products", { productName: a, cloudProtocol: PROTOCOL[a] })).body;
    const r = await f.api("POST", "/devices", {
      productID: product.productID,
      deviceName: `${a}-device`,
      deviceType: 1,
      upLinkSystem: 1,
      authType: 1,
    });
    expect(r.status).toBe(201);
    devices.set(a, r.body);
  }
}, 60_000);
afterAll(async () => {
  await f?.close();
});

/** Starts the load of one adapter's device, on the adapter's current address. */
async function load(adapter: (typeof ADAPTERS)[number]): Promise<DeviceLoad> {
  const d = devices.get(adapter)!;
  const urls = f.adapters.get(adapter)!.urls;
  const topic = `load/${n++}`;
  if (adapter === "mqtt-adapter") return mqttLoad(reachable(urls.mqtt!), d, topic);
  if (adapter === "coap-adapter") return coapLoad(reachable(urls.coap!), d, topic);
  return httpLoad(reachable(urls.http!), d, topic);
}

/** Waits until every load has `more` acknowledged messages than now. */
async function progress(loads: DeviceLoad[], more = 20, timeout = 20_000): Promise<void> {
  const from = loads.map((l) => l.acked.size);
  await expect.poll(() => loads.every((l, i) => l.acked.size >= from[i]! + more), { timeout, interval: 50 }).toBe(true);
}

/**
 * Stops the loads and checks the store holds every acknowledged message of each, once; `inFlightAgain` allows the
 * messages under way at a crash (one per lane) to be stored twice.
 */
async function settle(loads: Map<string, DeviceLoad>, inFlightAgain = false): Promise<void> {
  for (const l of loads.values()) await l.stop();
  for (const [adapter, l] of loads) {
    const check = await checkStored((m, p) => f.api(m, p), devices.get(adapter)!.id, l);
    const summary = { adapter, acked: l.acked.size, stored: check.stored, refusals: l.refusals };
    expect({ ...summary, lost: check.lost }).toEqual({ ...summary, lost: [] });
    if (inFlightAgain) expect(check.duplicates.length, check.duplicates.join()).toBeLessThanOrEqual(l.lanes);
    else expect(check.duplicates).toEqual([]);
    expect(l.acked.size).toBeGreaterThan(0);
  }
}

describe("kill -9 under load", () => {
  it("of the central node loses no acknowledged MQTT, CoAP or HTTP message and stores none twice", async () => {
    const loads = new Map(await Promise.all(ADAPTERS.map(async (a) => [a, await load(a)] as const)));
    await progress([...loads.values()]);
    await killHard(f.central);
    await new Promise((r) => setTimeout(r, 1_000));
    await f.startCentral();
    await progress([...loads.values()]);
    await settle(loads);
    for (const a of ADAPTERS) {
      const p = f.adapters.get(a)!;
      expect(p.child.exitCode, `${a} still running`).toBeNull();
      expect(p.errors.join("\n")).toMatch(/registry stream lost; reconnecting/);
      expect(p.errors.join("\n")).toMatch(/registry link up again/);
    }
  }, 60_000);

  for (const adapter of ADAPTERS) {
    it(`of the ${adapter} loses no message its devices saw acknowledged; they resend and it serves again`, async () => {
      const loads = new Map([[adapter, await load(adapter)]]);
      const l = loads.get(adapter)!;
      await progress([l]);
      await killHard(f.adapters.get(adapter)!);
      await f.startAdapter(adapter);
      await progress([l]);
      await settle(loads, true);
      expect(f.central.errors.join("\n")).toMatch(/adapter stream lost; its sessions wait/);
    }, 60_000);
  }
});
