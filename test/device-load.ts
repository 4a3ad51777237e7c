/**
 * Checks over the device loads of bench/device-lanes.ts (re-exported here) for the fault tests: every acknowledged
 * message stored, and stored once.
 */
import { expect } from "vitest";
import type { DeviceLoad } from "../bench/device-lanes.js";
import type { TestDevice } from "./helpers.js";

export { coapLoad, httpLoad, loraLoad, mqttLoad, type DeviceLoad } from "../bench/device-lanes.js";

/** What the store holds of a load: acknowledged payloads missing from it, and payloads stored more than once. */
interface StoreCheck {
  stored: number;
  lost: string[];
  duplicates: string[];
}

/** Reads every stored event of device `id` (pages of 1000) and compares the payloads with what `load` had acked. */
async function checkStored(
  api: (method: string, path: string) => Promise<{ status: number; body: any }>,
  id: number,
  load: DeviceLoad,
): Promise<StoreCheck> {
  const payloads: string[] = [];
  for (let page = 1; ; page++) {
    const r = await api("GET", `/devices/${id}/events?_limit=1000&_page=${page}`);
    if (r.status !== 200) throw new Error(`events of device ${id}: ${r.status} ${JSON.stringify(r.body)}`);
    const items = r.body.items as Array<{ payload: string }>;
    payloads.push(...items.map((e) => e.payload));
    if (items.length < 1000) break;
  }
  const seen = new Set<string>();
  const duplicates = payloads.filter((p) => seen.has(p) || !seen.add(p));
  return { stored: payloads.length, lost: [...load.acked].filter((p) => !seen.has(p)), duplicates };
}

/** Waits until every load has `more` acknowledged messages than when called. */
export async function moreAcks(loads: readonly DeviceLoad[], more = 20, timeout = 20_000): Promise<void> {
  const from = loads.map((l) => l.acked.size);
  await expect.poll(() => loads.every((l, i) => l.acked.size >= from[i]! + more), { timeout, interval: 50 }).toBe(true);
}

/** A device and the load it ran. */
export interface DeviceRun {
  device: TestDevice;
  load: DeviceLoad;
}

/**
 * Stops the loads and checks the store holds every acknowledged message of each, once; `inFlightAgain` allows the
 * messages under way when an adapter died (one per lane: stored, but their ack died with it) to be stored twice.
 */
export async function expectStoredOnce(
  api: (method: string, path: string) => Promise<{ status: number; body: any }>,
  runs: readonly DeviceRun[],
  inFlightAgain = false,
): Promise<void> {
  for (const { load } of runs) await load.stop();
  for (const { device, load } of runs) {
    const check = await checkStored(api, device.id, load);
    const summary = { load: load.label, acked: load.acked.size, stored: check.stored, refusals: load.refusals };
    expect({ ...summary, lost: check.lost }).toEqual({ ...summary, lost: [] });
    if (inFlightAgain) expect(check.duplicates.length, check.duplicates.join()).toBeLessThanOrEqual(load.lanes);
    else expect(check.duplicates).toEqual([]);
    expect(load.acked.size).toBeGreaterThan(0);
  }
}
