/**
 * The registry's LoRaWAN contract over real gRPC, as the network server adapter will use it: a device named by
 * DevEUI or DevAddr comes with its keys and session, a join's session is recorded once per DevNonce, and frame
 * counters reported on the stream are kept.
 */

import { afterAll, beforeAll, expect, it } from "vitest";
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
