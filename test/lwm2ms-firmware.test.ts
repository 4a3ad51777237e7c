import { createHash } from "node:crypto";
import { createAdapterLogger } from "@iot/adapter-core";
import { createMessageLayer, type Peer } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, simulatedPackage } from "@iot/adapter-lwm2m";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DtlsPskClient } from "./dtls-psk-client.js";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * LwM2M firmware update over DTLS with a pre-shared key: the project's client simulator registered on the DTLS port
 * (identity the IMEI, key the token's bytes) is updated by pull — its Package URI is `coaps://` and it downloads
 * block-wise over its DTLS session — and by push (block-wise Write of /5/0/0 on the session). The command's control
 * log, read through REST, names the firmware and holds none of its bytes.
 */
let t: TestFleet;
let productID: string;
let server: Peer;
let n = 0;
const closers: (() => void)[] = [];

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["lwm2m-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "fw-dtls", cloudProtocol: 3 })).body.productID;
  const url = new URL(t.lwm2msUrl);
  server = { address: url.hostname, port: Number(url.port) };
}, 90_000);
afterEach(() => {
  for (const close of closers.splice(0)) close();
});
afterAll(() => t?.close());

async function upload(version: string, bytes: Buffer) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ name: "meter", version, productID })) form.set(k, v);
  form.set("file", new Blob([bytes]), "image.bin");
  const res = await fetch(`${t.apiUrl}/firmwares`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.token}` },
    body: form,
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { firmwareID: string; size: number; sha256: string };
}

/** A simulated device with firmware 1.0.0 registered over its own DTLS PSK session. */
async function device(): Promise<{ d: TestDevice; sim: Lwm2mClientSimulator }> {
  const IMEI = `35500000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(productID, `fw-dtls-${n++}`, { IMEI, autoSub: 0 });
  const dtls = await DtlsPskClient.connect(server.address, server.port, IMEI, Buffer.from(d.token));
  const sim = new Lwm2mClientSimulator({
    endpoint: IMEI,
    lifetime: 60,
    firmwareVersion: "1.0.0",
    firmwareProtocols: ["coaps"],
  });
  const layer = createMessageLayer(sim.handler, {
    logger: createAdapterLogger("lwm2m-simulator", "silent"),
    maxBodyBytes: 1024 * 1024,
    send: (datagram) => dtls.send(datagram),
  });
  dtls.onData((data) => layer.handle(data, server, (answer) => dtls.send(answer)));
  closers.push(
    () => layer.close(),
    () => dtls.close(),
  );
  sim.attach(layer, server);
  expect((await sim.register()).code).toBe("2.01");
  await expect.poll(async () => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
  return { d, sim };
}

async function ended(statusUrl: string) {
  let last: any;
  await expect
    .poll(async () => (last = (await t.api("GET", statusUrl)).body).status, { timeout: 30_000, interval: 200 })
    .toBeGreaterThanOrEqual(3);
  return last;
}

describe("LwM2M firmware update over DTLS with a pre-shared key", () => {
  it("updates a device by pull (coaps:// download on its session) and one by push; the control logs name the package", async () => {
    const bytes = simulatedPackage("3.0.0", 48 * 1024);
    const fw = await upload("3.0.0", bytes);
    expect(fw.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    const [pulled, pushed] = [await device(), await device()];

    const pull = await t.api("POST", `/firmwares/${fw.firmwareID}/update`, { deviceIDs: [pulled.d.deviceID] });
    const push = await t.api("POST", `/firmwares/${fw.firmwareID}/update`, {
      method: "push",
      deviceIDs: [pushed.d.deviceID],
    });
    expect([pull.status, push.status]).toEqual([202, 202]);
    const pullDone = await ended(pull.body.statusUrl);
    expect(pullDone).toMatchObject({ status: 3, result: { total: 1, updated: 1 } });
    expect(await ended(push.body.statusUrl)).toMatchObject({ status: 3, result: { total: 1, updated: 1 } });

    for (const { sim } of [pulled, pushed]) {
      expect(sim.resources.get("/3/0/3")).toEqual({ type: "string", value: "3.0.0" });
      expect(sim.firmware!.received).toBe(48 * 1024);
    }
    const uri = (pulled.sim.resources.get("/5/0/1") as { value: string }).value;
    expect(uri).toMatch(new RegExp(`^${t.lwm2msUrl}/fw/[A-Za-z0-9_-]{22}$`));
    expect(pushed.sim.requests.some((r) => r.path === "/5/0/0" && r.method === "PUT")).toBe(true);

    for (const [{ d }, method] of [
      [pulled, "pull"],
      [pushed, "push"],
    ] as const) {
      const logs = (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items as {
        payload: string;
        publishStatus: number;
      }[];
      expect(logs).toHaveLength(1);
      expect(logs[0]!.publishStatus).toBe(2);
      const payload = JSON.parse(logs[0]!.payload);
      expect(payload).toEqual({
        reqID: expect.stringMatching(/^fw-/),
        msgType: "firmware-update",
        data: {
          method,
          firmwareID: fw.firmwareID,
          name: "meter",
          version: "3.0.0",
          size: 48 * 1024,
          sha256: fw.sha256,
        },
      });
      expect(logs[0]!.payload.length).toBeLessThan(400);
    }
  });
});
