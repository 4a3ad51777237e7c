import { spawn, type ChildProcess } from "node:child_process";
import { quietFor } from "@iot/config/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createMessageLayer,
  listenUdp,
  type ClientResponse,
  type CoapReply,
  type CoapRequest,
  type MessageLayer,
  type Peer,
  type UdpListener,
} from "@iot/adapter-coap";
import { createAdapterLogger } from "@iot/adapter-core";
import { freePort } from "./helpers.js";

/**
 * The CoAP message layer against libcoap, an independent implementation: as a client of libcoap's example server
 * (coap-server-notls: `/` text, `/time` observable once a second, `/async?<s>` answered separately after s seconds),
 * and as a server for libcoap's coap-client-notls, the way an LwM2M server takes a Register.
 */
const servers: ChildProcess[] = [];
const layers: { layer: MessageLayer; udp: UdpListener }[] = [];
let con: Peer;
let non: Peer;

/** Starts coap-server-notls on a free port (extra arguments: e.g. -N for NON notifications). */
async function libcoapServer(...args: string[]): Promise<Peer> {
  const port = await freePort();
  servers.push(spawn("coap-server-notls", ["-A", "127.0.0.1", "-p", String(port), ...args], { stdio: "ignore" }));
  return { address: "127.0.0.1", port };
}

/** A message layer on its own UDP socket; `sent` counts the requests and empty ACKs it sends. */
async function layerOnUdp(options: { maxSzx?: number; handler?: (r: CoapRequest) => Promise<CoapReply> }) {
  const sent = { requests: 0, acks: 0 };
  const count = (d: Buffer) => {
    if (d[0] === 0x60 && d[1] === 0) sent.acks++;
    else if (d[1]! >= 1 && d[1]! <= 7) sent.requests++;
  };
  let udp: UdpListener | undefined;
  const layer = createMessageLayer(options.handler ?? (async () => ({ code: "4.04" })), {
    logger: createAdapterLogger("coap-client-role-test", "silent"),
    maxBodyBytes: 65_536,
    ...(options.maxSzx !== undefined && { maxSzx: options.maxSzx }),
    send: (d, peer) => (count(d), udp!.send(d, peer)),
  });
  const counted = {
    handle: (d: Buffer, peer: Peer, reply: (d: Buffer) => void) =>
      layer.handle(d, peer, (answer) => (count(answer), reply(answer))),
  };
  udp = await listenUdp(counted, { port: 0, host: "127.0.0.1", onError: () => {} });
  layers.push({ layer, udp });
  return { layer, udp, sent };
}

/** Runs coap-client-notls without blocking this process (whose layer must answer it). */
function coapClient(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn("coap-client-notls", args);
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("close", () => resolve(output));
  });
}

/** Resolves once `peer` answers a GET /, or throws after a few seconds. */
async function ready(layer: MessageLayer, peer: Peer) {
  await vi.waitFor(
    async () => {
      const answer = await layer.request(peer, { method: "GET", path: "/" }).catch(() => undefined);
      if (!answer) throw new Error(`coap-server-notls on ${peer.port} did not answer`);
    },
    { timeout: 10_000, interval: 200 },
  );
}

beforeAll(async () => {
  con = await libcoapServer();
  non = await libcoapServer("-N");
  const { layer } = await layerOnUdp({});
  await Promise.all([ready(layer, con), ready(layer, non)]);
}, 30_000);

afterAll(async () => {
  for (const { layer, udp } of layers) {
    layer.close();
    await udp.close();
  }
  for (const server of servers) server.kill();
});

describe("the CoAP message layer as a client of libcoap's coap-server", () => {
  it("reassembles the index page from 16-byte Block2 blocks it asks for from the first request", async () => {
    const { layer, sent } = await layerOnUdp({ maxSzx: 0 });
    const index = await layer.request(con, { method: "GET", path: "/" });
    expect(index.code).toBe("2.05");
    expect(index.payload.toString()).toMatch(/^This is a test server made with libcoap.*\n.*Olaf Bergmann/s);
    expect(sent.requests).toBe(Math.ceil(index.payload.length / 16));
  });

  it("takes a separate response after libcoap's empty ACK, and ACKs it", async () => {
    const { layer, sent } = await layerOnUdp({});
    const started = Date.now();
    const answer = await layer.request(con, { method: "GET", path: "/async", query: ["1"] });
    expect([answer.code, answer.payload.toString()]).toEqual(["2.05", "done"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(sent.acks).toBe(1);
  });

  it("answers 4.04 for a resource libcoap does not have", async () => {
    const { layer } = await layerOnUdp({});
    expect((await layer.request(con, { method: "GET", path: "/no/such" })).code).toBe("4.04");
  });

  it("observes /time: a notification each second with a newer number, until cancel deregisters", async () => {
    const { layer, sent } = await layerOnUdp({});
    const got: ClientResponse[] = [];
    const observation = await layer.observe(con, { method: "GET", path: "/time" }, (n) => void got.push(n));
    expect([observation.active, observation.response.code]).toEqual([true, "2.05"]);
    await expect.poll(() => got.length, { timeout: 5000 }).toBeGreaterThanOrEqual(2);
    const numbers = [observation.response.observe!, ...got.map((n) => n.observe!)];
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(sent.acks).toBeGreaterThanOrEqual(got.length); // libcoap's notifications are CON without -N
    const last = await observation.cancel();
    expect([last.code, last.observe]).toEqual(["2.05", undefined]);
    const count = got.length;
    await quietFor(1500, "a notification after the cancel would come within this");
    expect(got.length).toBe(count);
  });

  it("takes NON notifications without ACKing them (libcoap -N makes every fifth CON)", async () => {
    const { layer, sent } = await layerOnUdp({});
    const got: ClientResponse[] = [];
    const observation = await layer.observe(non, { method: "GET", path: "/time" }, (n) => void got.push(n));
    await expect.poll(() => got.length, { timeout: 6000 }).toBeGreaterThanOrEqual(3);
    expect(sent.acks).toBeLessThan(got.length);
    observation.forget();
  });
});

describe("the CoAP message layer as a server for libcoap's coap-client", () => {
  it("hands a Register-like POST its raw query with Q and Content-Format 40; coap-client sees Location-Path", async () => {
    const seen: CoapRequest[] = [];
    const { udp } = await layerOnUdp({
      handler: async (r) => (seen.push(r), { code: "2.01", locationPath: "/rd/x7", maxAge: 30 }),
    });
    const url = `coap://127.0.0.1:${udp.port}/rd?ep=urn:imei:490154203237518&lt=60&lwm2m=1.1&Q`;
    const received = await coapClient(["-m", "post", "-t", "40", "-e", "</3/0>,</1/0>", "-v", "7", "-B", "5", url]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "POST",
      path: ["rd"],
      queryList: ["ep=urn:imei:490154203237518", "lt=60", "lwm2m=1.1", "Q"],
      contentFormat: 40,
    });
    expect(seen[0]!.payload.toString()).toBe("</3/0>,</1/0>");
    expect(received).toMatch(/c:2\.01 .*Location-Path:rd, Location-Path:x7/);
    expect(received).toMatch(/c:2\.01 .*Max-Age:30/);
  });
});
