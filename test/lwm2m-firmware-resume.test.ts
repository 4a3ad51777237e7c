import { spawnSync } from "node:child_process";
import { createSocket } from "node:dgram";
import { createAdapterLogger } from "@iot/adapter-core";
import { createMessageLayer, listenUdp, type MessageLayer, type Peer, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, simulatedPackage } from "@iot/adapter-lwm2m";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FakeCoapClient } from "../packages/adapters/coap/src/fake-coap-client.js";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * An interrupted pull download resumes: the simulated device's download is taken over by the test, which fetches the
 * first blocks of the Package URI from one UDP socket, drops it, and has libcoap's coap-client-notls fetch the rest
 * from block 10 on (`-b 10,1024`) from another port, which the adapter's message layer never saw: the adapter
 * answers the block asked for, with the same ETag, and the device updates with the joined package.
 */
let t: TestFleet;
let productID: string;
let server: Peer;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["lwm2m-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "fw-resume", cloudProtocol: 3 })).body.productID;
  const url = new URL(t.lwm2mUrl);
  server = { address: url.hostname, port: Number(url.port) };
}, 90_000);
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(() => t?.close());

/** A FakeCoapClient on a real UDP socket of its own, talking to `peer`. */
function udpClient(peer: Peer) {
  const socket = createSocket("udp4");
  let deliver: ((d: Buffer) => void) | undefined;
  socket.on("message", (d) => deliver?.(d));
  const client = new FakeCoapClient({
    handle(datagram, _peer, send) {
      deliver = send;
      socket.send(datagram, peer.port, peer.address);
    },
  });
  return { client, close: () => socket.close() };
}

const option = (p: { options: { name: string | number; value: Buffer }[] }, name: string) =>
  p.options.find((o) => o.name === name)?.value;

describe("LwM2M firmware pull download", () => {
  it("resumes from the block the client asks for, on another port, with the same ETag; the device then updates", async () => {
    const bytes = simulatedPackage("4.0.0", 40 * 1024 + 300);
    const form = new FormData();
    for (const [k, v] of Object.entries({ name: "meter", version: "4.0.0", productID })) form.set(k, v);
    form.set("file", new Blob([bytes]), "image.bin");
    const up = await fetch(`${t.apiUrl}/firmwares`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.token}` },
      body: form,
    });
    const fw = (await up.json()) as { firmwareID: string };
    expect(up.status).toBe(201);

    const IMEI = "356000000001000";
    const d: TestDevice = await t.newDevice(productID, "fw-resume", { IMEI, autoSub: 0 });
    const etags: Buffer[] = [];
    const firmwareDownload = async (uri: string) => {
      const url = new URL(uri);
      // The first ten 1024-byte blocks from one socket, then that socket is gone: the transfer is cut.
      const first = udpClient(server);
      const parts: Buffer[] = [];
      for (let num = 0; num < 10; num++) {
        const answer = await first.client.request("0.01", url.pathname, {
          query: [],
          block2: { num, more: false, szx: 6 },
        });
        expect(answer.code).toBe("2.05");
        if (num === 0) etags.push(option(answer, "ETag")!);
        parts.push(answer.payload);
      }
      first.close();
      // The rest by libcoap from block 10 on, each block from a new port (coap-client 4.3 takes the one block a
      // `-b <num>,1024` request asks for and ends): every one is a download the adapter's layer never saw.
      const blocks = Math.ceil(bytes.length / 1024);
      for (let num = 10; num < blocks; num++) {
        const rest = spawnSync("coap-client-notls", ["-m", "get", "-b", `${num},1024`, uri], {
          timeout: 20_000,
          maxBuffer: 1024 * 1024,
        });
        expect(rest.stderr.toString()).toBe("");
        // coap-client ends what it prints with a line feed.
        parts.push(rest.stdout.subarray(0, rest.stdout.length - 1));
      }
      // A third socket asks block 12 alone: it gets that block with the ETag of the first.
      const third = udpClient(server);
      closers.push(third.close);
      const twelfth = await third.client.request("0.01", url.pathname, {
        query: [],
        block2: { num: 12, more: false, szx: 6 },
      });
      etags.push(option(twelfth, "ETag")!);
      expect(twelfth.payload).toEqual(bytes.subarray(12 * 1024, 13 * 1024));
      const joined = Buffer.concat(parts);
      expect(joined.equals(bytes)).toBe(true);
      return joined;
    };
    const sim = new Lwm2mClientSimulator({ endpoint: IMEI, lifetime: 60, firmwareVersion: "1.0.0", firmwareDownload });
    let udp: UdpListener | undefined;
    const layer: MessageLayer = createMessageLayer(sim.handler, {
      logger: createAdapterLogger("lwm2m-simulator", "silent"),
      maxBodyBytes: 1024 * 1024,
      send: (datagram, p) => udp?.send(datagram, p),
    });
    udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
    closers.push(
      () => layer.close(),
      () => udp.close(),
    );
    sim.attach(layer, server);
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(async () => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);

    const started = await t.api("POST", `/firmwares/${fw.firmwareID}/update`, { deviceIDs: [d.deviceID] });
    expect(started.status).toBe(202);
    let task: any;
    await expect
      .poll(async () => (task = (await t.api("GET", started.body.statusUrl)).body).status, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(3);
    expect(task).toMatchObject({ status: 3, result: { updated: 1 } });
    expect(sim.firmware!.received).toBe(bytes.length);
    expect(sim.resources.get("/3/0/3")).toEqual({ type: "string", value: "4.0.0" });
    expect(etags).toHaveLength(2);
    expect(etags[1]).toEqual(etags[0]);
  });
});
