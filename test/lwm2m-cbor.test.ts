import { createAdapterLogger } from "@iot/adapter-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMessageLayer, listenUdp, type MessageLayer, type Peer, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, type SimulatorOptions } from "@iot/adapter-lwm2m";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * LwM2M CBOR (application/vnd.oma.lwm2m+cbor, 11544) end to end: real processes and the project's client simulator
 * over UDP, registering as LwM2M 1.2 (or as 1.1 announcing 11544 in `ct`). The server reads, composite-reads and
 * observes in LwM2M CBOR and the uplinks carry the same values a SenML client's would.
 */
const LWM2M_CBOR = 11544;
let t: TestFleet;
let productID: string;
let server: Peer;
let n = 0;
const running: { udp: UdpListener; layer: MessageLayer }[] = [];

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["lwm2m-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "lwm2m-cbor", cloudProtocol: 3 })).body.productID;
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
  const IMEI = `35300000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(productID, `lwm2m-cbor-${n++}`, { IMEI, autoSub: 0 });
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
const latestTemperature = async (d: TestDevice) =>
  (
    (await t.api("GET", `/original_data?deviceID=${d.deviceID}`)).body as Array<{
      originalData: { value: number[] };
    }>
  )[0]?.originalData.value.at(-1);

describe("LwM2M CBOR", () => {
  it("a 1.2 client is composite-read and observed in LwM2M CBOR; answers and notifications become the same values", async () => {
    const d = await newDevice();
    const sim = await client({ endpoint: d.IMEI, version: "1.2", lifetime: 60 });
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);

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
          { path: "/3303/0/5700", value: 22.5 },
        ],
      },
    });
    const fetch = sim.requests.find((r) => r.method === "FETCH")!;
    expect([fetch.contentFormat, fetch.accept]).toEqual([LWM2M_CBOR, LWM2M_CBOR]);
    // {[3, 0, 9]: null, [3303, 0, 5700]: null}: the paths asked for, as LwM2M CBOR.
    expect(fetch.payload.toString("hex")).toBe("a283030009f68319" + "0ce7001916" + "44f6");

    await publish(d, { reqID: 2, msgType: "observe", data: { path: "/3303/0" } });
    await expect.poll(() => sim.observedPaths, { timeout: 5000 }).toEqual(["/3303/0"]);
    expect(sim.requests.at(-1)).toMatchObject({ method: "GET", path: "/3303/0", accept: LWM2M_CBOR, observe: 0 });
    await sim.set("/3303/0/5700", { type: "float", value: 26.5 });
    await expect
      .poll(async () => (await uplinks(d, "up/notify")).at(-1), { timeout: 5000 })
      .toEqual({
        reqID: 2,
        msgType: "notify",
        data: {
          code: "2.05",
          codeMsg: "Content",
          content: [
            { path: "/3303/0/5700", value: 26.5 },
            { path: "/3303/0/5701", value: "Cel" },
          ],
        },
      });
    // The notification's value reaches the data point named by its path, as a SenML one does.
    await expect.poll(() => latestTemperature(d), { timeout: 5000 }).toBe(26.5);

    await publish(d, { reqID: 3, msgType: "observe-composite", data: { paths: ["/3/0/9"] } });
    await expect.poll(() => sim.composite.observed, { timeout: 5000 }).toEqual([["/3/0/9"]]);
    await sim.set("/3/0/9", { type: "integer", value: 55n });
    await expect
      .poll(async () => (await uplinks(d, "up/notify")).at(-1), { timeout: 5000 })
      .toEqual({
        reqID: 3,
        msgType: "notify",
        data: { code: "2.05", codeMsg: "Content", content: [{ path: "/3/0/9", value: 55 }] },
      });
  });

  it("a 1.1 client announcing 11544 in ct is read and written in LwM2M CBOR", async () => {
    const d = await newDevice();
    const sim = await client({ endpoint: d.IMEI, version: "1.1", contentFormats: [110, LWM2M_CBOR], lifetime: 60 });
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);

    await publish(d, { reqID: "r", msgType: "read", data: { path: "/3/0" } });
    await expect.poll(() => uplinks(d, "up/resp"), { timeout: 5000 }).toHaveLength(1);
    expect(sim.requests.at(-1)).toMatchObject({ method: "GET", path: "/3/0", accept: LWM2M_CBOR });
    expect((await uplinks(d, "up/resp"))[0]!.data).toEqual({
      code: "2.05",
      codeMsg: "Content",
      content: [
        { path: "/3/0/0", value: "Open Mobile Alliance" },
        { path: "/3/0/1", value: "Lightweight M2M Client" },
        { path: "/3/0/9", value: 87 },
        { path: "/3/0/13", value: 1_700_000_000 },
        { path: "/3/0/14", value: "+01:00" },
      ],
    });

    await publish(d, {
      reqID: "w",
      msgType: "write-composite",
      data: { content: [{ path: "/3/0/14", value: "+04:00" }] },
    });
    await expect
      .poll(() => sim.resources.get("/3/0/14"), { timeout: 5000 })
      .toEqual({ type: "string", value: "+04:00" });
    const patch = sim.requests.find((r) => r.method === "iPATCH")!;
    expect(patch.contentFormat).toBe(LWM2M_CBOR);
    // {[3, 0, 14]: "+04:00"}
    expect(patch.payload.toString("hex")).toBe("a18303000e662b30343a3030");
  });
});
