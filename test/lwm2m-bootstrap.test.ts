import { spawnSync } from "node:child_process";
import { createAdapterLogger } from "@iot/adapter-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMessageLayer, listenUdp, type MessageLayer, type Peer, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, type SimulatorOptions } from "@iot/adapter-lwm2m";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * LwM2M 1.1 bootstrap, Send and composite operations end to end: real processes, libcoap's coap-client-notls for
 * the raw Bootstrap-Request, and the project's client simulator over UDP for whole sequences.
 */
let t: TestFleet;
let productID: string;
let server: Peer;
let n = 0;
const running: { udp: UdpListener; layer: MessageLayer }[] = [];

beforeAll(async () => {
  t = await startTestFleet(
    { IOT_LWM2M_BOOTSTRAP_LIFETIME: "120", IOT_LWM2M_BOOTSTRAP_HOST: "127.0.0.1" },
    { adapters: ["lwm2m-adapter"] },
  );
  productID = (await t.api("POST", "/products", { productName: "lwm2m-bs", cloudProtocol: 3 })).body.productID;
  const point = await t.api("POST", "/data_points", {
    productID,
    dataPointName: "Temperature",
    dataPointID: "3303/0/5700",
    pointDataType: 1,
    dataTransType: 1,
  });
  if (point.status !== 201) throw new Error(JSON.stringify(point.body));
  const url = new URL(t.lwm2mUrl);
  server = { address: url.hostname, port: Number(url.port) };
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

async function newDevice(): Promise<TestDevice & { IMEI: string }> {
  const IMEI = `35200000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(productID, `lwm2m-bs-${n++}`, { IMEI, autoSub: 0 });
  return { ...d, IMEI };
}

async function client(options: SimulatorOptions): Promise<Lwm2mClientSimulator> {
  const sim = new Lwm2mClientSimulator(options);
  let udp: UdpListener | undefined;
  const layer = createMessageLayer(sim.handler, {
    logger: createAdapterLogger("lwm2m-simulator", "silent"),
    maxBodyBytes: 65_536,
    send: (d, p) => udp?.send(d, p),
  });
  udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
  running.push({ udp, layer });
  sim.attach(layer, server);
  return sim;
}

const statusOf = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;
const uplinks = async (d: TestDevice, topic: string) =>
  ((await t.api("GET", `/devices/${d.id}/events?_limit=100`)).body.items as { topic: string; payload: string }[])
    .filter((e) => e.topic === topic)
    .map((e) => JSON.parse(e.payload) as { reqID?: unknown; msgType: string; data: Record<string, unknown> })
    .reverse();
const publish = async (d: TestDevice, command: unknown) =>
  (await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: JSON.stringify(command) })).body;

describe("LwM2M bootstrap, Send and composite operations", () => {
  it("answers coap-client's Bootstrap-Request 2.04 for a device and 4.03 with a connect log for an unknown one", async () => {
    const d = await newDevice();
    const bs = (ep: string) =>
      spawnSync("coap-client-notls", ["-m", "post", "-t", "0", `${t.lwm2mUrl}/bs?ep=${ep}`], {
        encoding: "utf8",
        timeout: 20_000,
      });
    expect(bs(d.IMEI).stderr).toBe("");
    const blocked = await newDevice();
    expect((await t.api("PUT", `/devices/${blocked.id}`, { blocked: 1 })).status).toBeLessThan(300);
    expect(bs(blocked.IMEI).stderr).toMatch(/^4\.03/);
    await expect
      .poll(async () => (await t.api("GET", `/devices/${blocked.id}/connect_logs`)).body.items.length, {
        timeout: 5000,
      })
      .toBeGreaterThan(0);
    expect(bs("352999999999999").stderr).toMatch(/^4\.03/);
  });

  it("bootstraps the simulator, which then registers with what it was given, sends values and answers composites", async () => {
    const d = await newDevice();
    const sim = await client({ endpoint: d.IMEI, version: "1.1" });
    const result = await sim.bootstrap(110);
    expect(result).toMatchObject({ serverUri: t.lwm2mUrl, securityMode: 3, lifetime: 120, binding: "U" });
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);

    await sim.set("/3303/0/5700", { type: "float", value: 24.5 });
    expect((await sim.sendValues(["/3303/0/5700"], 112)).code).toBe("2.04");
    await expect
      .poll(() => uplinks(d, "up/send"), { timeout: 5000 })
      .toEqual([{ msgType: "send", data: { content: [{ path: "/3303/0/5700", value: 24.5 }] } }]);

    await publish(d, { reqID: 1, msgType: "read-composite", data: { paths: ["/3303/0/5700", "/3/0/9"] } });
    await expect.poll(() => uplinks(d, "up/resp"), { timeout: 5000 }).toHaveLength(1);
    expect((await uplinks(d, "up/resp"))[0]).toEqual({
      reqID: 1,
      msgType: "read-composite",
      data: {
        code: "2.05",
        codeMsg: "Content",
        content: [
          { path: "/3/0/9", value: 87 },
          { path: "/3303/0/5700", value: 24.5 },
        ],
      },
    });
    await publish(d, {
      reqID: 2,
      msgType: "write-composite",
      data: { content: [{ path: "/3/0/14", value: "+03:00" }] },
    });
    await expect
      .poll(() => sim.resources.get("/3/0/14"), { timeout: 5000 })
      .toEqual({ type: "string", value: "+03:00" });
    await publish(d, { reqID: 3, msgType: "observe-composite", data: { paths: ["/3303/0/5700"] } });
    await expect.poll(() => sim.composite.observed, { timeout: 5000 }).toEqual([["/3303/0/5700"]]);
    await sim.set("/3303/0/5700", { type: "float", value: 25 });
    await expect
      .poll(() => uplinks(d, "up/notify"), { timeout: 5000 })
      .toEqual([
        {
          reqID: 3,
          msgType: "notify",
          data: { code: "2.05", codeMsg: "Content", content: [{ path: "/3303/0/5700", value: 25 }] },
        },
      ]);
  });

  it("answers a Send from a client that is not registered 4.04", async () => {
    const d = await newDevice();
    const sim = await client({ endpoint: d.IMEI, version: "1.1" });
    expect((await sim.sendValues(["/3303/0/5700"])).code).toBe("4.04");
  });
});
