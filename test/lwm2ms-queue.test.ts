import { createAdapterLogger } from "@iot/adapter-core";
import { createMessageLayer, type MessageLayer, type Peer } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, type SimulatorOptions } from "@iot/adapter-lwm2m";
import { quietFor } from "@iot/config/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DtlsPskClient } from "./dtls-psk-client.js";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * The project's LwM2M client simulator over DTLS with a pre-shared key (identity the IMEI, key the bytes of the hex
 * token), holding its session: autoSub observations and their notifications, and queue mode, as over NoSec.
 */
let t: TestFleet;
let productID: string;
let server: Peer;
let n = 0;
const running: { dtls: DtlsPskClient; layer: MessageLayer }[] = [];

beforeAll(async () => {
  t = await startTestFleet({ IOT_LWM2M_QUEUE_AWAKE: "2" }, { adapters: ["lwm2m-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "lwm2ms-queue", cloudProtocol: 3 })).body.productID;
  const url = new URL(t.lwm2msUrl);
  server = { address: url.hostname, port: Number(url.port) };
}, 90_000);
afterEach(() => {
  for (const r of running.splice(0)) {
    r.layer.close();
    r.dtls.close();
  }
});
afterAll(() => t?.close());

async function newDevice(autoSub: 0 | 1): Promise<TestDevice & { IMEI: string }> {
  const IMEI = `35300000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(productID, `lwm2ms-q-${n++}`, { IMEI, autoSub });
  return { ...d, IMEI };
}

/** A simulated client on a DTLS session of its own: the layer's datagrams go encrypted, the server's come decrypted. */
async function client(d: TestDevice & { IMEI: string }, options: Omit<SimulatorOptions, "endpoint">) {
  const dtls = await DtlsPskClient.connect(server.address, server.port, d.IMEI, Buffer.from(d.token, "hex"));
  const sim = new Lwm2mClientSimulator({ endpoint: d.IMEI, ...options });
  const layer = createMessageLayer(sim.handler, {
    logger: createAdapterLogger("lwm2m-simulator", "silent"),
    maxBodyBytes: 65_536,
    send: (datagram) => dtls.send(datagram),
  });
  dtls.onData((data) => layer.handle(data, server, (answer) => dtls.send(answer)));
  running.push({ dtls, layer });
  sim.attach(layer, server);
  return sim;
}

const statusOf = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;
const uplinks = async (d: TestDevice, topic: string) =>
  ((await t.api("GET", `/devices/${d.id}/events?_limit=100`)).body.items as { topic: string; payload: string }[])
    .filter((e) => e.topic === topic)
    .map((e) => JSON.parse(e.payload) as { reqID: unknown; data: Record<string, unknown> });
const controlStatus = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus;

describe("the LwM2M client simulator over DTLS with a pre-shared key", () => {
  it("is observed by autoSub on its session and its notifications arrive as up/notify", async () => {
    const d = await newDevice(1);
    const sim = await client(d, { lifetime: 60 });
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
    await expect.poll(() => sim.observedPaths, { timeout: 5000 }).toEqual(["/3/0", "/3303/0"]);
    await expect.poll(async () => (await uplinks(d, "up/notify")).length, { timeout: 5000 }).toBe(2);
  });

  it("sleeps in queue mode (b=UQ) and gets the command that waited at its next Update, on the same session", async () => {
    const d = await newDevice(0);
    const sim = await client(d, { lifetime: 60, binding: "UQ" });
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 8000 }).toBe(2);
    const sent = await t.api("POST", "/device_publish", {
      deviceID: d.deviceID,
      payload: JSON.stringify({ reqID: "q1", msgType: "read", data: { path: "/3303/0/5700" } }),
    });
    expect(sent.body.publishStatus).toBe("1");
    await quietFor(500, "a read sent to the sleeping device would come within this");
    expect(sim.requests).toEqual([]);
    expect((await sim.update()).code).toBe("2.04");
    await expect.poll(() => controlStatus(d), { timeout: 5000 }).toBe(2);
    expect((await uplinks(d, "up/resp"))[0]).toMatchObject({
      reqID: "q1",
      data: { code: "2.05", content: [{ path: "/3303/0/5700", value: 22.5 }] },
    });
  });
});
