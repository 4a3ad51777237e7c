import { spawnSync } from "node:child_process";
import { createAdapterLogger } from "@iot/adapter-core";
import { quietFor } from "@iot/config/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMessageLayer, listenUdp, type MessageLayer, type Peer, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, type SimulatorOptions } from "@iot/adapter-lwm2m";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * An LwM2M device end to end: real processes, the project's LwM2M client simulator over UDP (lwm2m-node-lib's client
 * registers on Node 20 but never answers the server's requests: docs/devices/lwm2m.md), and libcoap's
 * coap-client-notls as an independent client registering with a raw Register.
 */
let t: TestFleet;
let productID: string;
let server: Peer;
let n = 0;
const running: { udp: UdpListener; layer: MessageLayer }[] = [];

beforeAll(async () => {
  // A 1 s request timeout (default 30 s) so that commands a device never answers fail fast.
  t = await startTestFleet(
    { IOT_LWM2M_QUEUE_AWAKE: "2", IOT_LWM2M_REQUEST_TIMEOUT_MS: "1000" },
    { adapters: ["lwm2m-adapter"] },
  );
  productID = (await t.api("POST", "/products", { productName: "lwm2m", cloudProtocol: 3 })).body.productID;
  // A data point named by its object path gets the values of answers and notifications (no data stream needed).
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

/** A new LwM2M device with a fresh 15-digit IMEI. */
async function newDevice(autoSub: 0 | 1): Promise<TestDevice & { IMEI: string }> {
  const IMEI = `35000000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(productID, `lwm2m-${n++}`, { IMEI, autoSub });
  return { ...d, IMEI };
}

/** A simulated client on its own UDP socket. */
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
const connectStatuses = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
    (l: { connectStatus: number }) => l.connectStatus,
  );
/** The device's uplinks on a topic, payloads parsed, oldest first. */
const uplinks = async (d: TestDevice, topic: string) =>
  ((await t.api("GET", `/devices/${d.id}/events?_limit=100`)).body.items as { topic: string; payload: string }[])
    .filter((e) => e.topic === topic)
    .map((e) => JSON.parse(e.payload) as { reqID: unknown; msgType: string; data: Record<string, unknown> })
    .reverse();
const publish = async (d: TestDevice, command: unknown) =>
  (await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: JSON.stringify(command) })).body;
const controlStatus = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus;

describe("an LwM2M device", () => {
  it("registers with libcoap's coap-client: 2.01 and online; an unknown endpoint gets 4.03", async () => {
    const d = await newDevice(0);
    const register = (ep: string) =>
      spawnSync(
        "coap-client-notls",
        ["-m", "post", "-t", "40", "-e", "</3/0>,</3303/0>", `${t.lwm2mUrl}/rd?ep=${ep}&lt=2&b=U`],
        { encoding: "utf8", timeout: 20_000 },
      );
    expect(register(d.IMEI).stderr).toBe("");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
    expect(register("359999999999999").stderr).toMatch(/^4\.03/);
    // lt=2: no Update comes, so the registration expires (2 s + 2 s grace) and the device goes offline
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(0);
    expect(await connectStatuses(d)).toEqual([0, 1]);
  });

  it("registers, is observed by autoSub, answers read/write/execute, notifies, updates and de-registers", async () => {
    const d = await newDevice(1);
    const sim = await client({ endpoint: d.IMEI, lifetime: 60 });
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
    await expect.poll(() => sim.observedPaths, { timeout: 5000 }).toEqual(["/3/0", "/3303/0"]);
    await expect.poll(async () => (await uplinks(d, "up/notify")).length, { timeout: 5000 }).toBe(2);

    await sim.set("/3303/0/5700", { type: "float", value: 24.5 });
    await expect
      .poll(async () => (await uplinks(d, "up/notify")).at(-1)?.data.content, { timeout: 5000 })
      .toEqual([
        { path: "/3303/0/5700", value: 24.5 },
        { path: "/3303/0/5701", value: "Cel" },
      ]);
    await expect
      .poll(
        async () =>
          (
            (await t.api("GET", `/original_data?deviceID=${d.deviceID}`)).body as Array<{
              originalData: { value: number[] };
            }>
          )[0]?.originalData.value.at(-1),
        { timeout: 5000 },
      )
      .toBe(24.5);

    expect((await publish(d, { reqID: 1, msgType: "read", data: { path: "/3/0/0" } })).publishStatus).toBe("1");
    await expect.poll(() => controlStatus(d), { timeout: 5000 }).toBe(2);
    expect((await uplinks(d, "up/resp"))[0]).toEqual({
      reqID: 1,
      msgType: "read",
      data: { code: "2.05", codeMsg: "Content", content: [{ path: "/3/0/0", value: "Open Mobile Alliance" }] },
    });

    await publish(d, { reqID: 2, msgType: "write", data: { path: "/3/0/14", value: "+05:30" } });
    await expect
      .poll(() => sim.resources.get("/3/0/14"), { timeout: 5000 })
      .toEqual({ type: "string", value: "+05:30" });

    sim.resources.set("/3/0/4", { type: "string", value: "" });
    await publish(d, { reqID: 3, msgType: "execute", data: { path: "/3/0/4" } });
    await expect.poll(() => sim.executed.length, { timeout: 5000 }).toBe(1);

    await publish(d, { reqID: 4, msgType: "read", data: { path: "/4/0" } });
    await expect.poll(async () => (await uplinks(d, "up/resp")).at(-1)?.reqID, { timeout: 5000 }).toBe(4);
    expect((await uplinks(d, "up/resp")).at(-1)!.data).toEqual({ code: "4.04", codeMsg: "Not Found" });
    await expect.poll(() => controlStatus(d), { timeout: 5000 }).toBe(0);

    expect((await sim.update(["lt=120"])).code).toBe("2.04");
    expect((await sim.deregister()).code).toBe("2.02");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(0);
    expect(await connectStatuses(d)).toEqual([0, 1]);
  });

  it("fails commands the device never answers after the request timeout, and a read sent after them gets through", async () => {
    const d = await newDevice(0);
    const sim = await client({ endpoint: d.IMEI, lifetime: 60 });
    sim.ignore.add("/3/0/13");
    sim.ignore.add("/3/0/14");
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
    await publish(d, { reqID: "t1", msgType: "read", data: { path: "/3/0/13" } });
    await publish(d, { reqID: "t2", msgType: "write", data: { path: "/3/0/14", value: "+01:00" } });
    await publish(d, { reqID: "t3", msgType: "read", data: { path: "/3/0/0" } });
    // CoAP's retransmissions alone would hold each unanswered command for 62-93 s.
    await expect.poll(async () => (await uplinks(d, "up/resp")).map((u) => u.reqID), { timeout: 8000 }).toEqual(["t3"]);
    const logs = async () =>
      ((await t.api("GET", `/devices/${d.id}/control_logs`)).body.items as Record<string, unknown>[])
        .map((l) => [JSON.parse(l.payload as string).reqID, l.publishStatus, l.publishResult])
        .reverse();
    await expect.poll(logs, { timeout: 5000 }).toEqual([
      ["t1", 0, "timeout: no answer from the peer within 1000 ms"],
      ["t2", 0, "timeout: no answer from the peer within 1000 ms"],
      ["t3", 2, null],
    ]);
    expect(sim.requests.map((r) => r.path)).toEqual(["/3/0/13", "/3/0/14", "/3/0/0"]);
  });

  it("sleeps in queue mode (deviceStatus 2) and gets the command that waited at its next Update", async () => {
    const d = await newDevice(0);
    const sim = await client({ endpoint: d.IMEI, lifetime: 60, binding: "UQ" });
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 8000 }).toBe(2);
    expect((await publish(d, { reqID: "q1", msgType: "read", data: { path: "/3303/0/5700" } })).publishStatus).toBe(
      "1",
    );
    await quietFor(500, "a read sent to the sleeping device would come within this");
    expect(sim.requests).toEqual([]);
    expect(await controlStatus(d)).toBe(1);
    expect((await sim.update()).code).toBe("2.04");
    await expect.poll(() => controlStatus(d), { timeout: 5000 }).toBe(2);
    expect((await uplinks(d, "up/resp"))[0]).toMatchObject({
      reqID: "q1",
      data: { code: "2.05", content: [{ path: "/3303/0/5700", value: 22.5 }] },
    });
    expect(await statusOf(d)).toBe(1);
    await expect.poll(() => statusOf(d), { timeout: 8000 }).toBe(2);
  });
});
