import { createAdapterLogger } from "@iot/adapter-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMessageLayer, listenUdp, type MessageLayer, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator } from "@iot/adapter-lwm2m";
import { stopProcess } from "../scripts/fleet.js";
import { killHard, startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";
import type { TestDevice } from "./helpers.js";

/**
 * LwM2M observations across restarts: the adapter keeps its registrations and their observations in the data folder
 * and, started again, observes the same paths anew, so a client that never registers again keeps reporting; a
 * restart of the central node leaves the adapter's observations running.
 */
let t: RestartableFleet;
let n = 0;
const running: { udp: UdpListener; layer: MessageLayer }[] = [];

beforeAll(async () => {
  t = await startRestartableFleet({}, ["lwm2m-adapter"]);
}, 90_000);
afterEach(async () => {
  for (const { udp, layer } of running.splice(0)) {
    layer.close();
    await udp.close();
  }
});
afterAll(async () => {
  await t?.close();
});

/** A device with autoSub, its simulated client registered and observed, and a count of its Registers. */
async function observedDevice() {
  const IMEI = `35200000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(3, `restart-${n++}`, { IMEI, autoSub: 1 });
  const sim = new Lwm2mClientSimulator({ endpoint: IMEI, lifetime: 300 });
  let udp: UdpListener | undefined;
  const layer = createMessageLayer(sim.handler, {
    logger: createAdapterLogger("lwm2m-simulator", "silent"),
    maxBodyBytes: 65_536,
    send: (datagram, p) => udp?.send(datagram, p),
  });
  udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
  running.push({ udp, layer });
  sim.attach(layer, { address: "127.0.0.1", port: Number(t.settings.IOT_LWM2M_PORT) });
  const registers = { count: 0 };
  const register = sim.register.bind(sim);
  sim.register = () => {
    registers.count++;
    return register();
  };
  expect((await sim.register()).code).toBe("2.01");
  await expect.poll(() => sim.observedPaths, { timeout: 5000 }).toEqual(["/3/0", "/3303/0"]);
  return { d, sim, registers };
}

/** The latest temperature the device notified, from its `up/notify` uplinks. */
const lastTemperature = async (d: TestDevice) => {
  const items = (await t.api("GET", `/devices/${d.id}/events?_limit=50`)).body?.items as
    { topic: string; payload: string }[] | undefined;
  const notes = (items ?? []).filter((e) => e.topic === "up/notify").map((e) => JSON.parse(e.payload));
  const content = notes.map((p) => p.data.content as { path: string; value: unknown }[] | undefined);
  return content.flatMap((c) => c ?? []).find((c) => c.path === "/3303/0/5700")?.value;
};

describe("LwM2M observations across restarts", () => {
  it("are observed again by a restarted adapter (killed -9): notifications flow within seconds, no new Register", async () => {
    const { d, sim, registers } = await observedDevice();
    await sim.set("/3303/0/5700", { type: "float", value: 21.5 });
    await expect.poll(() => lastTemperature(d), { timeout: 5000 }).toBe(21.5);

    await killHard(t.adapters.get("lwm2m-adapter")!);
    const started = Date.now();
    await t.startAdapter("lwm2m-adapter");
    // The new process observes both paths again, with new tokens.
    await expect
      .poll(() => sim.requests.filter((r) => r.observe === 0).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(4);
    await sim.set("/3303/0/5700", { type: "float", value: 23.5 });
    await expect.poll(() => lastTemperature(d), { timeout: 5000 }).toBe(23.5);
    expect(Date.now() - started).toBeLessThan(15_000);
    // The notification on the old token was refused (RST): the client holds only the new observation of /3303/0
    // (the old one of /3/0 goes at its next notification).
    expect(sim.observedPaths.filter((p) => p === "/3303/0")).toEqual(["/3303/0"]);
    expect(registers.count).toBe(1);
    // The client's next Update finds its registration.
    expect((await sim.update()).code).toBe("2.04");
    expect((await t.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
  });

  it("are observed again after a graceful adapter restart, and keep delivering across a central restart", async () => {
    const { d, sim, registers } = await observedDevice();
    await stopProcess(t.adapters.get("lwm2m-adapter")!);
    const before = sim.requests.length;
    await t.startAdapter("lwm2m-adapter");
    await expect
      .poll(() => sim.requests.slice(before).filter((r) => r.observe === 0).length, { timeout: 10_000 })
      .toBe(2);
    await sim.set("/3303/0/5700", { type: "float", value: 25 });
    await expect.poll(() => lastTemperature(d), { timeout: 5000 }).toBe(25);

    await killHard(t.central);
    await t.startCentral();
    await sim.set("/3303/0/5700", { type: "float", value: 26 });
    await expect.poll(() => lastTemperature(d), { timeout: 15_000 }).toBe(26);
    expect(registers.count).toBe(1);
    expect((await sim.update()).code).toBe("2.04");
  });
});
