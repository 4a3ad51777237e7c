/**
 * The registry's LoRaWAN contract over real gRPC, as the network server adapter will use it: a device named by
 * DevEUI or DevAddr comes with its keys and session, a join's session is recorded once per DevNonce, and frame
 * counters reported on the stream are kept.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAdapterLogger, createGrpcRegistryClient, type RegistryClient } from "@iot/adapter-core";
import { reachable } from "../scripts/fleet.js";
import { startTestFleet, type TestFleet } from "./helpers.js";

const KEY = "2B7E151628AED2A6ABF7158809CF4F3C";
let t: TestFleet;
let registry: RegistryClient;
let otaaId: number;

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: [] });
  registry = createGrpcRegistryClient({
    address: reachable(t.fleet.central.urls.grpc!),
    protocol: "lora",
    logger: createAdapterLogger("lora-test", "silent"),
    token: t.fleet.registryToken,
  });
  registry.start();
  const product = (await t.api("POST", "/products", { productName: "Trackers", cloudProtocol: 4 })).body;
  const d = await t.api("POST", "/devices", {
    productID: product.productID,
    deviceName: "tracker",
    deviceID: "70B3D57ED0000001",
    upLinkSystem: 1,
    lora: { type: "otaa", appEUI: "70B3D57ED0000000", appKey: KEY, fcntCheck: 1, canJoin: true, region: "EU868" },
  });
  expect(d.status, JSON.stringify(d.body)).toBe(201);
  otaaId = d.body.id;
}, 60_000);

afterAll(async () => {
  await registry?.close();
  await t?.close();
});

it("answers a join's device with its keys, records the join once, and then knows it by its new DevAddr", async () => {
  const heard = await registry.authenticate("lora", { kind: "lora", devEui: "70b3d57ed0000001", devAddr: "" }, "");
  expect(heard).toMatchObject({
    ok: true,
    session: {
      device: { deviceIntId: otaaId },
      lora: { activation: "otaa", appKey: KEY, canJoin: true, session: null },
    },
  });
  const session = { devAddr: "260B1234", nwkSKey: KEY, appSKey: KEY };
  expect(await registry.loraActivate(otaaId, 0x1234, session)).toEqual({ result: "OK", message: "" });
  expect((await registry.loraActivate(otaaId, 0x1234, session)).result).toBe("DEV_NONCE_REUSED");
  const byAddr = await registry.authenticate("lora", { kind: "lora", devEui: "", devAddr: "260b1234" }, "");
  expect(byAddr).toMatchObject({
    ok: true,
    session: { lora: { session: { devAddr: "260B1234", fcntUp: 0, fcntDown: 0 }, usedDevNonces: [0x1234] } },
  });
});

it("keeps the frame counters the network server reports on its stream", async () => {
  registry.reportLoraCounters([{ deviceIntId: otaaId, fcntUp: 17, fcntDown: 4 }]);
  await expect
    .poll(async () => {
      const r = await registry.authenticate("lora", { kind: "lora", devEui: "", devAddr: "260B1234" }, "");
      return r.ok ? r.session.lora?.session?.fcntUp : undefined;
    })
    .toBe(17);
});

it("names a LoRa gateway by its EUI: a gateway record with gatewayProtocol 4 and that deviceID", async () => {
  const product = (await t.api("POST", "/products", { productName: "LoRa gateways", cloudProtocol: 4 })).body;
  const g = await t.api("POST", "/gateways", {
    productID: product.productID,
    gatewayName: "roof",
    gatewayProtocol: 4,
    authType: 1,
    deviceID: "AA555A0000000001",
  });
  expect(g.status, JSON.stringify(g.body)).toBe(201);
  const known = await registry.authenticate(
    "lora",
    { kind: "lora", devEui: "", devAddr: "", gatewayEui: "aa555a0000000001" },
    "",
  );
  expect(known).toMatchObject({ ok: true, session: { device: { deviceIntId: g.body.id, isGateway: true } } });
  const unknown = await registry.authenticate(
    "lora",
    { kind: "lora", devEui: "", devAddr: "", gatewayEui: "aa555a0000000009" },
    "",
  );
  expect(unknown).toMatchObject({ ok: false, code: "BAD_CREDENTIALS" });
});

describe("lora.macVersion", () => {
  const NWK = "000102030405060708090A0B0C0D0E0F";
  let productID: string;
  const post = (deviceID: string, lora: Record<string, unknown>) =>
    t.api("POST", "/devices", { productID, deviceName: `d${deviceID}`, deviceID, upLinkSystem: 1, lora });
  const otaa = { type: "otaa", appEUI: "70B3D57ED0000000", appKey: KEY, fcntCheck: 1, canJoin: true };

  beforeAll(async () => {
    productID = (await t.api("POST", "/products", { productName: "1.1 sensors", cloudProtocol: 4 })).body.productID;
  });

  it("gives the network server a 1.1 device's NwkKey beside its AppKey, and 1.0.x when the record says none", async () => {
    expect((await post("70B3D57ED0000011", { ...otaa, macVersion: "1.1", nwkKey: NWK })).status).toBe(201);
    expect((await post("70B3D57ED0000010", otaa)).status).toBe(201);
    const v11 = await registry.authenticate("lora", { kind: "lora", devEui: "70b3d57ed0000011", devAddr: "" }, "");
    expect(v11).toMatchObject({ ok: true, session: { lora: { macVersion: "1.1", nwkKey: NWK, appKey: KEY } } });
    const v10 = await registry.authenticate("lora", { kind: "lora", devEui: "70b3d57ed0000010", devAddr: "" }, "");
    expect(v10).toMatchObject({ ok: true, session: { lora: { macVersion: "1.0.x", nwkKey: "" } } });
  });

  it.each([
    [{ ...otaa, macVersion: "1.2" }, "lora.macVersion", /1\.0\.x, 1\.1/],
    [{ ...otaa, macVersion: "1.1" }, "lora.nwkKey", /required/],
    [{ ...otaa, macVersion: "1.1", nwkKey: "00ff" }, "lora.nwkKey", /32 hex digits/],
    [{ ...otaa, nwkKey: NWK }, "lora.nwkKey", /only for macVersion 1.1/],
  ])("refuses %o with a 400 naming %s", async (lora, field, reason) => {
    const r = await post("70B3D57ED00000AA", lora);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe("FORM_INVALID");
    expect(r.body.errors[field]).toMatch(reason);
  });
});
