import { createHash } from "node:crypto";
import { createAdapterLogger } from "@iot/adapter-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMessageLayer, listenUdp, type MessageLayer, type Peer, type UdpListener } from "@iot/adapter-coap";
import { Lwm2mClientSimulator, simulatedPackage } from "@iot/adapter-lwm2m";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * LwM2M firmware update end to end: packages uploaded through REST into the data folder, updates as tasks carried
 * out by the LwM2M adapter process on the project's client simulator (object 5 as OMA-TS-LightweightM2M-V1_0
 * Appendix E.6 describes it) over real UDP, by pull (the device downloads block-wise from the adapter) and push.
 */
let t: TestFleet;
let productID: string;
let server: Peer;
let n = 0;
const running: { udp: UdpListener; layer: MessageLayer }[] = [];

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["lwm2m-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "fw", cloudProtocol: 3 })).body.productID;
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

/** Uploads a package as `curl -F` does: multipart fields and the file. */
async function upload(fields: Record<string, string>, bytes?: Buffer) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (bytes) form.set("file", new Blob([bytes]), "image.bin");
  const res = await fetch(`${t.apiUrl}/firmwares`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** A registered simulated device with firmware 1.0.0, on its own UDP socket. */
async function device(): Promise<{ d: TestDevice; sim: Lwm2mClientSimulator }> {
  const IMEI = `35100000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(productID, `fw-${n++}`, { IMEI, autoSub: 0 });
  const sim = new Lwm2mClientSimulator({ endpoint: IMEI, lifetime: 60, firmwareVersion: "1.0.0" });
  let udp: UdpListener | undefined;
  const layer = createMessageLayer(sim.handler, {
    logger: createAdapterLogger("lwm2m-simulator", "silent"),
    maxBodyBytes: 1024 * 1024,
    send: (datagram, p) => udp?.send(datagram, p),
  });
  udp = await listenUdp(layer, { port: 0, host: "127.0.0.1", onError: () => {} });
  running.push({ udp, layer });
  sim.attach(layer, server);
  expect((await sim.register()).code).toBe("2.01");
  await expect.poll(async () => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus).toBe(1);
  return { d, sim };
}

/** Reads a task until it ended (status 3 or 4). */
async function ended(statusUrl: string) {
  let last: any;
  await expect
    .poll(async () => (last = (await t.api("GET", statusUrl)).body).status, { timeout: 20_000, interval: 200 })
    .toBeGreaterThanOrEqual(3);
  return last;
}

describe("LwM2M firmware update", () => {
  it("stores an upload with its size and SHA-256, checks a given SHA-256, names missing fields, lists and deletes", async () => {
    const bytes = simulatedPackage("9.9.9", 5000);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const bad = await upload({ name: "app", version: "9.9.9", productID, sha256: "ab".repeat(32) }, bytes);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.sha256).toBe(`does not match the package (its SHA-256 is ${sha256})`);
    const missing = await upload({ name: "app", productID });
    expect(missing.status).toBe(400);
    expect(Object.keys(missing.body.errors).sort()).toEqual(["file", "version"]);
    const created = await upload({ name: "app", version: "9.9.9", productID, sha256 }, bytes);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "app", version: "9.9.9", productID, size: 5000, sha256 });
    expect((await upload({ name: "app", version: "9.9.9", productID }, bytes)).status).toBe(400);
    const id = created.body.firmwareID;
    expect(
      (await t.api("GET", `/firmwares?productID=${productID}`)).body.items.map((x: any) => x.firmwareID),
    ).toContain(id);
    expect((await t.api("GET", `/firmwares/${id}`)).body.sha256).toBe(sha256);
    expect((await t.api("DELETE", `/firmwares/${id}`)).status).toBe(204);
    expect((await t.api("GET", `/firmwares/${id}`)).status).toBe(404);
  });

  it("updates a group's devices by pull and a device by push: each downloads, updates, comes back with the new version", async () => {
    const bytes = simulatedPackage("2.0.0", 64 * 1024);
    const fw = (await upload({ name: "app", version: "2.0.0", productID }, bytes)).body;
    const [a, b, c] = [await device(), await device(), await device()];
    const group = (await t.api("POST", "/groups", { productID, groupName: "fw-pull" })).body;
    expect((await t.api("POST", `/groups/${group.id}/devices`, { ids: [a.d.id, b.d.id] })).status).toBe(201);

    const pull = await t.api("POST", `/firmwares/${fw.firmwareID}/update`, { groupID: group.groupID });
    expect(pull.status).toBe(202);
    const push = await t.api("POST", `/firmwares/${fw.firmwareID}/update`, {
      method: "push",
      deviceIDs: [c.d.deviceID],
    });
    expect(push.status).toBe(202);

    const pulled = await ended(pull.body.statusUrl);
    expect(pulled).toMatchObject({ status: 3, progress: 100, result: { total: 2, updated: 2, failed: 0, pending: 0 } });
    expect(pulled.result.devices.map((x: any) => x.status)).toEqual(["updated", "updated"]);
    expect(await ended(push.body.statusUrl)).toMatchObject({ status: 3, result: { total: 1, updated: 1 } });
    for (const { sim } of [a, b, c]) {
      expect(sim.resources.get("/3/0/3")).toEqual({ type: "string", value: "2.0.0" });
      expect(sim.firmware!.received).toBe(64 * 1024);
    }
    // Pull went by a token URI on the adapter's own port; push wrote /5/0/0.
    const uri = (a.sim.resources.get("/5/0/1") as { value: string }).value;
    expect(uri).toMatch(new RegExp(`^${t.lwm2mUrl}/fw/[A-Za-z0-9_-]{22}$`));
    expect(c.sim.requests.some((r) => r.path === "/5/0/0" && r.method === "PUT")).toBe(true);
    // The device's progress went up as notifications of its State.
    const events = (await t.api("GET", `/devices/${a.d.id}/events?_limit=100`)).body.items as {
      topic: string;
      payload: string;
    }[];
    const states = events
      .filter((e) => e.topic === "up/notify")
      .map((e) => JSON.parse(e.payload).data.content?.[0])
      .filter((x) => x?.path === "/5/0/3")
      .map((x) => x.value)
      .reverse();
    expect(states).toEqual([1, 2, 3, 0]);
  });

  it("fails the task with the device's Update Result when the package does not verify", async () => {
    const fw = (await upload({ name: "broken", version: "2.0.1", productID }, Buffer.alloc(4000, 7))).body;
    const { d, sim } = await device();
    const r = await t.api("POST", `/firmwares/${fw.firmwareID}/update`, { deviceIDs: [d.deviceID] });
    const done = await ended(r.body.statusUrl);
    expect(done).toMatchObject({ status: 4, message: "1 of 1 devices failed", result: { failed: 1 } });
    expect(done.result.devices[0]).toMatchObject({
      deviceID: d.deviceID,
      status: "failed",
      updateResult: 5,
      message: "update result 5: integrity check failure for new downloaded package",
    });
    expect(sim.resources.get("/3/0/3")).toEqual({ type: "string", value: "1.0.0" });
  });

  it("answers 400 naming the field for an update of no device, a device of another product, or both targets", async () => {
    const fw = (await upload({ name: "app", version: "3.0.0", productID }, simulatedPackage("3.0.0", 100))).body;
    const other = (await t.api("POST", "/products", { productName: "other", cloudProtocol: 3 })).body.productID;
    const stranger = await t.newDevice(other, `fw-other-${n++}`, { IMEI: "352222222222222", autoSub: 0 });
    const update = (body: unknown) => t.api("POST", `/firmwares/${fw.firmwareID}/update`, body);
    expect((await update({})).body.errors).toEqual({ deviceIDs: "give deviceIDs or groupID, one of them" });
    expect((await update({ deviceIDs: [stranger.deviceID] })).body.errors).toEqual({
      deviceIDs: `${stranger.deviceID} is not a device of the package's product`,
    });
    expect((await update({ deviceIDs: ["nope"], method: "fax" })).body.errors).toHaveProperty("method");
  });
});
