import { CompiledQuery } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { twoTenants } from "../domain/test-tenants.js";
import { createProduct } from "../domain/products.js";
import { createDevice } from "../domain/devices.js";
import { updateDevice } from "../domain/update-device.js";
import { createGateway } from "../domain/gateways.js";
import { authenticateDevice } from "../domain/device-auth.js";
import { loraGatewaysNamed } from "../domain/lora-auth.js";
import { RegistryError } from "../errors.js";
import { activateLoraSession, recordLoraCounters } from "./lora-sessions.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const LORA = 4;
const KEY = "2B7E151628AED2A6ABF7158809CF4F3C";

describe.each(engines)("LoRa devices for the network server on $name", (engine) => {
  async function setup() {
    const { db, caller, other } = await twoTenants(engine);
    const product = await createProduct(db, caller, { productName: "Trackers", cloudProtocol: LORA });
    const gw = await createGateway(db, caller, {
      productId: product.productId,
      deviceName: "lora gw",
      deviceId: "AA555A0000000101",
      gatewayProtocol: LORA,
      authType: 1,
    });
    const otaa = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "otaa",
      deviceId: "70b3d57ed0000001",
      upLinkSystem: 1,
      lora: { type: "otaa", appEUI: "70B3D57ED0000000", appKey: KEY, fcntCheck: 0, canJoin: true },
    });
    const abp = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "abp",
      deviceId: "26011BDA",
      upLinkSystem: 2,
      gateway: gw.id,
      lora: { type: "abp", region: "EU868", nwkSKey: KEY, appSKey: KEY, fcntUp: 5, fcntDown: 2, fcntCheck: 1 },
    });
    const hear = (devEui: string, devAddr = "") =>
      authenticateDevice(db, { protocol: LORA, clientIp: "", credentials: { kind: "lora", devEui, devAddr } });
    return { db, caller, other, product, gw, otaa, abp, hear };
  }

  it("admits a LoRa gateway by its EUI in either case, found through the index of LoRa gateways", async () => {
    const { db, gw } = await setup();
    const heardBy = (gatewayEui: string) =>
      authenticateDevice(db, {
        protocol: LORA,
        clientIp: "",
        credentials: { kind: "lora", gatewayEui, devEui: "", devAddr: "" },
      });
    expect(await heardBy("aa555a0000000101")).toMatchObject({ ok: true, device: { deviceIntId: gw.id } });
    expect(await heardBy("AA555A0000000999")).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    if (engine.name !== "sqlite") return;
    const { sql: text, parameters } = loraGatewaysNamed(db, "AA555A0000000101").compile();
    const plan = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${text}`, [...parameters]),
    );
    expect(plan.rows.map((r) => r.detail)).toContain("SEARCH d USING INDEX devices_lora_gateways (device_id=?)");
  });

  it("names an OTAA device by its DevEUI in any case, with its join keys and no session yet", async () => {
    const { otaa, hear } = await setup();
    expect(await hear("70B3D57ED0000001")).toMatchObject({
      ok: true,
      device: { deviceIntId: otaa.id },
      lora: {
        activation: "otaa",
        devEui: "70B3D57ED0000001",
        appEui: "70B3D57ED0000000",
        appKey: KEY,
        canJoin: true,
        session: null,
        usedDevNonces: [],
      },
    });
    expect(await hear("70B3D57ED0000099")).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
  });

  it("names an ABP device by its DevAddr, with the session its settings describe", async () => {
    const { abp, hear } = await setup();
    expect(await hear("", "26011bda")).toMatchObject({
      ok: true,
      device: { deviceIntId: abp.id },
      lora: {
        activation: "abp",
        fcntCheck: 1,
        session: { devAddr: "26011BDA", nwkSKey: KEY, appSKey: KEY, fcntUp: 5, fcntDown: 2 },
      },
    });
  });

  it("records a join's session once per DevNonce and address, then finds the device by its new DevAddr", async () => {
    const { db, caller, otaa, hear } = await setup();
    const session = { devAddr: "260B0001", nwkSKey: KEY, appSKey: KEY.toLowerCase() };
    expect(await activateLoraSession(db, otaa.id, 7, session)).toEqual({ result: "OK", message: "" });
    expect((await activateLoraSession(db, otaa.id, 7, session)).result).toBe("DEV_NONCE_REUSED");
    expect((await activateLoraSession(db, otaa.id, 8, { ...session, devAddr: "26011BDA" })).result).toBe(
      "DEV_ADDR_TAKEN",
    );
    expect(await hear("", "260B0001")).toMatchObject({
      ok: true,
      device: { deviceIntId: otaa.id },
      lora: { session: { devAddr: "260B0001", fcntUp: 0, fcntDown: 0 }, usedDevNonces: [7] },
    });
    await updateDevice(db, caller, otaa.id, {
      lora: { type: "otaa", appEUI: "70B3D57ED0000000", appKey: KEY, fcntCheck: 0, canJoin: false },
    });
    expect((await activateLoraSession(db, otaa.id, 9, session)).result).toBe("NOT_ALLOWED");
  });

  it("keeps the highest frame counters reported, whatever order the reports come in", async () => {
    const { db, abp, hear } = await setup();
    await recordLoraCounters(db, [
      { deviceIntId: abp.id, fcntUp: 40, fcntDown: 9 },
      { deviceIntId: abp.id, fcntUp: 30, fcntDown: 12 },
    ]);
    await recordLoraCounters(db, [{ deviceIntId: abp.id, fcntUp: 35, fcntDown: 3 }]);
    // A report naming more devices than one query binds (most of them unknown) is taken in parts.
    const many = Array.from({ length: 40_000 }, (_, i) => ({ deviceIntId: 1_000_000 + i, fcntUp: 1, fcntDown: 1 }));
    await recordLoraCounters(db, [...many, { deviceIntId: abp.id, fcntUp: 41, fcntDown: 1 }]);
    expect(await hear("", "26011BDA")).toMatchObject({ lora: { session: { fcntUp: 41, fcntDown: 12 } } });
  });

  it("ends the network session when the keys change, and keeps DevEUIs unique across tenants", async () => {
    const { db, caller, other, product, otaa, hear } = await setup();
    await activateLoraSession(db, otaa.id, 1, { devAddr: "260B0002", nwkSKey: KEY, appSKey: KEY });
    const r = await updateDevice(db, caller, otaa.id, {
      lora: { type: "otaa", appEUI: "70B3D57ED0000000", appKey: "00".repeat(16), fcntCheck: 0, canJoin: true },
    });
    expect(r.revoke).toBe("LoRa keys changed");
    expect(await hear("", "260B0002")).toMatchObject({ ok: false });
    expect((await hear("70B3D57ED0000001")).ok && (await hear("70B3D57ED0000001"))).toMatchObject({
      lora: { session: null },
    });
    const theirs = await createProduct(db, other, { productName: "Theirs", cloudProtocol: LORA });
    const copy = createDevice(db, other, {
      productId: theirs.productId,
      deviceName: "same eui",
      deviceId: "70B3D57ED0000001",
      upLinkSystem: 1,
      lora: { type: "otaa", appEUI: "70B3D57ED0000000", appKey: KEY, fcntCheck: 0, canJoin: true },
    });
    await expect(copy).rejects.toBeInstanceOf(RegistryError);
    await expect(copy).rejects.toMatchObject({ code: "DATA_EXISTED" });
    expect(product.cloudProtocol).toBe(LORA);
  });
});
