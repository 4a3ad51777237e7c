import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { bootstrapAdmin } from "../domain/bootstrap.js";
import type { Caller } from "../domain/caller.js";
import { createDevice } from "../domain/devices.js";
import { createProduct } from "../domain/products.js";
import { GatewayRelay } from "./gateway-relay.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("gateway relays on $name", (engine) => {
  async function setup() {
    const { store } = await engine.open();
    const boot = await bootstrapAdmin(store.db, { username: "a", password: "pw-1234567", tenantName: "T" });
    const caller: Caller = { userIntId: 1, username: "a", tenantId: boot.tenantId!, role: "admin", serviceAdmin: true };
    const p = await createProduct(store.db, caller, { productName: "p", cloudProtocol: 1 });
    const gw = await createDevice(store.db, caller, {
      productId: p.productId,
      deviceName: "gw",
      deviceType: 2,
      authType: 1,
    });
    const child = await createDevice(store.db, caller, {
      productId: p.productId,
      deviceName: "c",
      deviceId: "child-1",
      upLinkSystem: 2,
      gateway: gw.id,
      authType: 1,
    });
    const stranger = await createDevice(store.db, caller, {
      productId: p.productId,
      deviceName: "s",
      deviceId: "stranger",
      upLinkSystem: 1,
      authType: 1,
    });
    return { db: store.db, caller, p, gw, child, stranger };
  }

  it("turns a gateway's devices/<child>/<topic> publish into the child's uplink on <topic>", async () => {
    const { db, gw, child } = await setup();
    const relay = new GatewayRelay(db);
    expect(await relay.resolve(gw.id, "devices/child-1/temp/now")).toEqual({
      deviceIntId: child.id,
      gatewayIntId: gw.id,
      topic: "temp/now",
    });
    expect(await relay.resolve(gw.id, "status")).toEqual({ deviceIntId: gw.id, gatewayIntId: null, topic: "status" });
  });

  it("rejects a relay for a device that is not the gateway's, and leaves other devices' topics alone", async () => {
    const { db, gw, stranger } = await setup();
    const relay = new GatewayRelay(db);
    expect(await relay.resolve(gw.id, "devices/stranger/x")).toEqual({
      rejected: '"stranger" is not a device of this gateway',
    });
    expect(await relay.resolve(stranger.id, "devices/child-1/x")).toEqual({
      deviceIntId: stranger.id,
      gatewayIntId: null,
      topic: "devices/child-1/x",
    });
  });

  it("finds a child created after the gateway was cached", async () => {
    const { db, caller, p, gw } = await setup();
    let now = 1_000_000;
    const relay = new GatewayRelay(db, 5_000, () => now);
    expect(await relay.resolve(gw.id, "devices/late/x")).toHaveProperty("rejected");
    const late = await createDevice(db, caller, {
      productId: p.productId,
      deviceName: "late",
      deviceId: "late",
      upLinkSystem: 2,
      gateway: gw.id,
      authType: 1,
    });
    now += 600;
    expect(await relay.resolve(gw.id, "devices/late/x")).toEqual({
      deviceIntId: late.id,
      gatewayIntId: gw.id,
      topic: "x",
    });
  });
});
