/**
 * Fault injection: kill -9 of the central node, then of each device adapter, while devices publish (MQTT QoS 1,
 * confirmable CoAP, HTTP POSTs), and the killed process started again. Afterwards every message a device had
 * acknowledged is stored, none is stored twice, every process serves again, and the logs say what happened. An adapter
 * that dies takes its acks under way with it: the devices resend those messages to the new process (MQTT with DUP=1,
 * CoAP retransmitting, HTTP repeating its Idempotency-Key), which the registry recognises as already stored.
 */
import { spawnSync } from "node:child_process";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reachable } from "../scripts/fleet.js";
import { coapLoad, expectStoredOnce, httpLoad, moreAcks, mqttLoad } from "./device-load.js";
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
  for (const a of ADAPTERS) devices.set(a, await f.newDevice(PROTOCOL[a], `${a}-device`));
}, 60_000);
afterAll(async () => {
  await f?.close();
});

/**
 * Starts the load of one adapter's device (`d`, default the adapter's own), on the adapter's current address;
 * `identified` false: MQTT resends with DUP=0 (as plain mqtt.js does) and HTTP POSTs carry no Idempotency-Key.
 */
async function load(adapter: (typeof ADAPTERS)[number], d = devices.get(adapter)!, identified = true) {
  const urls = f.adapters.get(adapter)!.urls;
  const topic = `load/${n++}`;
  if (adapter === "mqtt-adapter") return mqttLoad(reachable(urls.mqtt!), d, topic, {}, identified);
  if (adapter === "coap-adapter") return coapLoad(reachable(urls.coap!), d, topic);
  return httpLoad(reachable(urls.http!), d, topic, {}, identified);
}

describe("kill -9 under load", () => {
  it("of the central node loses no acknowledged MQTT, CoAP or HTTP message and stores none twice", async () => {
    const runs = await Promise.all(ADAPTERS.map(async (a) => ({ device: devices.get(a)!, load: await load(a) })));
    await moreAcks(runs.map((r) => r.load));
    await killHard(f.central);
    await quietFor(1_000, "the load goes on against the dead node for a while");
    await f.startCentral();
    await moreAcks(runs.map((r) => r.load));
    await expectStoredOnce((m, p) => f.api(m, p), runs);
    for (const a of ADAPTERS) {
      const p = f.adapters.get(a)!;
      expect(p.child.exitCode, `${a} still running`).toBeNull();
      expect(p.errors.join("\n")).toMatch(/registry stream lost; reconnecting/);
      expect(p.errors.join("\n")).toMatch(/registry link up again/);
    }
  }, 60_000);

  for (const adapter of ADAPTERS) {
    it(`of the ${adapter} loses no acknowledged message and stores none twice; its devices resend, it serves again`, async () => {
      const run = { device: devices.get(adapter)!, load: await load(adapter) };
      await moreAcks([run.load]);
      await killHard(f.adapters.get(adapter)!);
      await f.startAdapter(adapter);
      await moreAcks([run.load]);
      await expectStoredOnce((m, p) => f.api(m, p), [run]);
      await expect
        .poll(() => f.central.errors.join("\n"), { timeout: 10_000 })
        .toMatch(/adapter stream lost; its sessions wait/);
    }, 60_000);
  }

  it("of the MQTT and HTTP adapters: resends that carry no identity (DUP=0, no Idempotency-Key) may be stored twice, at most one per message in flight", async () => {
    const plain = ["mqtt-adapter", "http-adapter"] as const;
    const runs = await Promise.all(
      plain.map(async (a) => {
        const device = await f.newDevice(PROTOCOL[a], `${a}-plain-device`);
        return { device, load: await load(a, device, false) };
      }),
    );
    await moreAcks(runs.map((r) => r.load));
    await Promise.all(plain.map((a) => killHard(f.adapters.get(a)!)));
    await Promise.all(plain.map((a) => f.startAdapter(a)));
    await moreAcks(runs.map((r) => r.load));
    await expectStoredOnce((m, p) => f.api(m, p), runs, true);
  }, 60_000);

  it("of the lwm2m-adapter: its devices register again (2.01) and come online through the new process", async () => {
    const IMEI = "350000000009901";
    const d = await f.newDevice(3, "lwm2m-device", { IMEI, autoSub: 0 });
    const lwm2m = await f.startAdapter("lwm2m-adapter");
    // libcoap's client as the device: a Register answered 2.01 prints nothing on stderr.
    const register = () =>
      spawnSync(
        "coap-client-notls",
        ["-m", "post", "-t", "40", "-e", "</3/0>", `${reachable(lwm2m.urls.lwm2m!)}/rd?ep=${IMEI}&lt=60&b=U`],
        { encoding: "utf8", timeout: 20_000 },
      ).stderr;
    const status = async () => (await f.api("GET", `/devices/${d.id}`)).body.deviceStatus as number;
    expect(register()).toBe("");
    await expect.poll(status, { timeout: 10_000 }).toBe(1);
    const onlines = async () =>
      ((await f.api("GET", `/devices/${d.id}/connect_logs`)).body.items as Array<{ connectStatus: number }>).filter(
        (l) => l.connectStatus === 1,
      ).length;
    const before = await onlines();
    await killHard(lwm2m);
    await f.startAdapter("lwm2m-adapter");
    expect(register()).toBe("");
    // The new process opened a session of its own for the device.
    await expect.poll(onlines, { timeout: 10_000 }).toBeGreaterThan(before);
    expect(await status()).toBe(1);
  }, 60_000);
});
