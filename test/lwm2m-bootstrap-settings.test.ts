import { spawnSync } from "node:child_process";
import { createAdapterLogger } from "@iot/adapter-core";
import { createMessageLayer, listenUdp, type MessageLayer, type Peer, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, type SimulatorOptions } from "@iot/adapter-lwm2m";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { X509Certificate } from "node:crypto";
import { DtlsPskClient } from "./dtls-psk-client.js";
import { issueCertificate } from "./issued-certificates.js";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * A device's own bootstrap settings, set through REST, written by a real bootstrap: the project's client simulator
 * takes the whole sequence (with the 1.1 Bootstrap-Read) and registers where it was pointed, over DTLS with the PSK
 * it was given; libcoap's coap-client-notls sends the raw Bootstrap-Request.
 */
let t: TestFleet;
let productID: string;
let plain: Peer;
let secure: Peer;
let n = 0;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  t = await startTestFleet(
    { IOT_LWM2M_BOOTSTRAP_LIFETIME: "120", IOT_LWM2M_BOOTSTRAP_HOST: "127.0.0.1" },
    { adapters: ["lwm2m-adapter"] },
  );
  productID = (await t.api("POST", "/products", { productName: "lwm2m-bs-settings", cloudProtocol: 3 })).body.productID;
  const peer = (u: string) => ({ address: new URL(u).hostname, port: Number(new URL(u).port) });
  plain = peer(t.lwm2mUrl);
  secure = peer(t.lwm2msUrl);
}, 90_000);
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(() => t?.close());

async function newDevice(lwm2mBootstrap: unknown): Promise<TestDevice & { IMEI: string }> {
  const IMEI = `35400000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(productID, `lwm2m-bss-${n++}`, { IMEI, autoSub: 0, lwm2mBootstrap });
  return { ...d, IMEI };
}

/** The simulator on plain UDP. */
async function udpClient(options: SimulatorOptions): Promise<Lwm2mClientSimulator> {
  const sim = new Lwm2mClientSimulator(options);
  let udp: UdpListener | undefined;
  const layer = createMessageLayer(sim.handler, {
    logger: createAdapterLogger("lwm2m-simulator", "silent"),
    maxBodyBytes: 65_536,
    send: (d, p) => udp?.send(d, p),
  });
  udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
  closers.push(
    () => layer.close(),
    () => udp.close(),
  );
  sim.attach(layer, plain);
  return sim;
}

/** The simulator on a DTLS session with a pre-shared key. */
async function dtlsClient(options: SimulatorOptions, identity: string, key: Buffer): Promise<Lwm2mClientSimulator> {
  const dtls = await DtlsPskClient.connect(secure.address, secure.port, identity, key);
  const sim = new Lwm2mClientSimulator(options);
  const layer: MessageLayer = createMessageLayer(sim.handler, {
    logger: createAdapterLogger("lwm2m-simulator", "silent"),
    maxBodyBytes: 65_536,
    send: (datagram) => dtls.send(datagram),
  });
  dtls.onData((data) => layer.handle(data, secure, (answer) => dtls.send(answer)));
  closers.push(
    () => layer.close(),
    () => dtls.close(),
  );
  sim.attach(layer, secure);
  return sim;
}

const statusOf = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;

describe("LwM2M bootstrap with the device's own settings", () => {
  it("points a NoSec-bootstrapped client at the DTLS listener with PSK, and the client registers there with what it was given", async () => {
    const d = await newDevice({ securityMode: "psk", lifetime: 90, binding: "UQ" });
    const detail = await t.api("GET", `/devices/${d.id}`);
    expect(detail.body.lwm2mBootstrap).toEqual({ securityMode: "psk", serverUri: null, lifetime: 90, binding: "UQ" });
    const raw = spawnSync("coap-client-notls", ["-m", "post", "-t", "0", `${t.lwm2mUrl}/bs?ep=${d.IMEI}&pct=110`], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(raw.stderr).toBe("");

    const sim = await udpClient({ endpoint: d.IMEI, version: "1.1" });
    const result = await sim.bootstrap(110);
    expect(result).toEqual({
      serverUri: t.lwm2msUrl,
      securityMode: 0,
      identity: Buffer.from(d.IMEI).toString("hex"),
      key: Buffer.from(d.token).toString("hex"),
      serverPublicKey: "",
      shortServerId: 1,
      lifetime: 90,
      binding: "UQ",
    });
    expect(sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "GET /1",
      "DELETE /",
      "GET /0",
      "PUT /0/0",
      "PUT /1/0",
      "POST /bs",
    ]);

    const identity = Buffer.from(result.identity, "hex").toString();
    const onDtls = await dtlsClient(
      { endpoint: d.IMEI, version: "1.1", lifetime: result.lifetime, binding: result.binding },
      identity,
      Buffer.from(result.key, "hex"),
    );
    expect((await onDtls.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBeGreaterThan(0);
  });

  it("writes the URI and lifetime an edit gave, NoSec, to a 1.0 client (no Bootstrap-Read), which registers with them", async () => {
    const d = await newDevice(null);
    const edited = await t.api("PUT", `/devices/${d.id}`, {
      lwm2mBootstrap: { securityMode: "nosec", serverUri: t.lwm2mUrl, lifetime: 45 },
    });
    expect(edited.status).toBe(200);
    const sim = await udpClient({ endpoint: d.IMEI, lifetime: 45 });
    const result = await sim.bootstrap();
    expect(result).toMatchObject({ serverUri: t.lwm2mUrl, securityMode: 3, lifetime: 45, binding: "U" });
    expect(sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["DELETE /", "PUT /0/1", "PUT /1/0", "POST /bs"]);
    expect((await sim.register()).code).toBe("2.01");
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
  });

  it("writes certificate mode with the service CA as Server Public Key for a device with certificate credentials", async () => {
    const cert = await issueCertificate(t, "bs-cert");
    const IMEI = "354000000008888";
    const created = await t.api("POST", "/devices", {
      productID,
      deviceName: "bs-cert",
      deviceType: 1,
      upLinkSystem: 1,
      authType: 2,
      IMEI,
      autoSub: 0,
      certs: [cert.id],
      lwm2mBootstrap: { securityMode: "certificate" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sim = await udpClient({ endpoint: IMEI, version: "1.1" });
    const result = await sim.bootstrap(110);
    expect(result).toMatchObject({
      serverUri: t.lwm2msUrl,
      securityMode: 2,
      identity: "",
      key: "",
      serverPublicKey: new X509Certificate(cert.root).raw.toString("hex"),
    });
  });

  it("answers a device body with a lifetime below 1 second 400 naming lwm2mBootstrap.lifetime", async () => {
    const r = await t.api("POST", "/devices", {
      productID,
      deviceName: "bad",
      deviceType: 1,
      upLinkSystem: 1,
      IMEI: "354000000009999",
      autoSub: 0,
      lwm2mBootstrap: { securityMode: "psk", lifetime: -1 },
    });
    expect([r.status, r.body.errors]).toEqual([400, { "lwm2mBootstrap.lifetime": "at least 1 second" }]);
  });
});
