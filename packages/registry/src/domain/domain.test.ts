import { afterAll, describe, expect, it } from "vitest";
import { RegistryError } from "../errors.js";
import { engines } from "../store/test-engines.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";
import { authenticateDevice } from "./device-auth.js";
import { insertDataPointRow, insertDataStreamRow } from "./data-model-rows.js";
import { createDevice } from "./devices.js";
import { listDevices } from "./list-devices.js";
import { updateDevice } from "./update-device.js";
import { MAX_PAGE } from "./list.js";
import { listConnectLogs } from "./logs.js";
import { createProduct, deleteProducts, listProducts } from "./products.js";
import { login } from "./users.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("domain on $name", (engine) => {
  async function setup() {
    const { store } = await engine.open();
    const boot = await bootstrapAdmin(store.db, { username: "root", password: "pw-1234567", tenantName: "T" });
    const user = await login(store.db, { username: "root", password: "pw-1234567" }, 60);
    const caller: Caller = {
      userIntId: user.userIntId,
      username: "root",
      tenantId: boot.tenantId!,
      role: "admin",
      serviceAdmin: true,
    };
    const product = await createProduct(store.db, caller, { productName: "Meter 100%_x", cloudProtocol: 1 });
    return { db: store.db, caller, product };
  }

  it("creates the first admin once, and generates a password only when none is configured", async () => {
    const { store } = await engine.open();
    const first = await bootstrapAdmin(store.db, { username: "a", tenantName: "T" });
    expect(first.created).toBe(true);
    expect(first.generatedPassword).toMatch(/^[\w-]{16}$/);
    await expect(login(store.db, { username: "a", password: first.generatedPassword! }, 60)).resolves.toMatchObject({
      username: "a",
    });
    expect(await bootstrapAdmin(store.db, { username: "b", password: "x", tenantName: "T" })).toEqual({
      created: false,
    });
  });

  it("filters with _like literally and case-insensitively, and counts devices per product", async () => {
    const { db, caller, product } = await setup();
    await createProduct(db, caller, { productName: "Meter 1000", cloudProtocol: 2 });
    const page = { page: 1, limit: 10 };
    expect((await listProducts(db, caller, page, { productNameLike: "100%" })).items.map((p) => p.productName)).toEqual(
      ["Meter 100%_x"],
    );
    expect((await listProducts(db, caller, page, { productNameLike: "METER" })).count).toBe(2);
    await createDevice(db, caller, { productId: product.productId, deviceName: "d", upLinkSystem: 1, authType: 1 });
    const listed = await listProducts(db, caller, page, { productNameLike: "_x" });
    expect(listed.items[0]?.deviceCount).toBe(1);
    expect((await listDevices(db, caller, { page: 1, limit: 1 })).count).toBe(1);
  });

  it("answers the last page the engine can skip to as empty, and refuses the next as PARAMETER_INVALID", async () => {
    const { db, caller } = await setup();
    const last = await listProducts(db, caller, { page: MAX_PAGE, limit: 1000 });
    expect(last).toMatchObject({ items: [], count: 1, page: MAX_PAGE });
    for (const page of [MAX_PAGE + 1, 2 ** 60]) {
      const err = await listProducts(db, caller, { page, limit: 10 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RegistryError);
      expect(err).toMatchObject({ code: "PARAMETER_INVALID", errors: { _page: `must be 1 to ${MAX_PAGE}` } });
    }
  });

  it("keeps an IMEI to one device across every tenant, on create and on edit, and takes an empty one as none", async () => {
    const { db, caller } = await setup();
    const lwm2m = await createProduct(db, caller, { productName: "lwm2m", cloudProtocol: 3 });
    const dev = (imei: string, c = caller, productId = lwm2m.productId) =>
      createDevice(db, c, { productId, deviceName: "m", upLinkSystem: 1, imei, autoSub: 1 });
    const first = await dev("490154203237518");
    await db
      .insertInto("tenants")
      .values({ tenantId: "other", tenantName: "O", enable: 1, createAt: 0, updateAt: null })
      .execute();
    const other: Caller = { ...caller, tenantId: "other", serviceAdmin: false };
    const theirs = await createProduct(db, other, { productName: "lwm2m", cloudProtocol: 3 });
    const existed = { code: "DATA_EXISTED", errors: { IMEI: "already exists" } };
    await expect(dev("490154203237518", other, theirs.productId)).rejects.toMatchObject(existed);
    const second = await dev("490154203237519");
    await expect(updateDevice(db, caller, second.id, { imei: "490154203237518" })).rejects.toMatchObject(existed);
    // The device's own IMEI is no clash; an MQTT device's empty IMEI is none, many times over.
    await expect(updateDevice(db, caller, first.id, { imei: "490154203237518" })).resolves.toBeDefined();
    const mqtt = await createProduct(db, caller, { productName: "mqtt", cloudProtocol: 1 });
    for (const n of [1, 2]) {
      const d = await createDevice(db, caller, {
        productId: mqtt.productId,
        deviceName: `e${n}`,
        upLinkSystem: 1,
        authType: 1,
        imei: "",
      });
      expect(d.imei).toBeNull();
    }
  });

  it("deletes a product together with its data points and streams", async () => {
    const { db, caller, product } = await setup();
    const point = await insertDataPointRow(db, { tenantId: caller.tenantId, userIntId: 1 }, product.id, "t", {
      dataTransType: 1,
    });
    const stream = await insertDataStreamRow(db, { tenantId: caller.tenantId, userIntId: 1 }, product.id, "t");
    await db
      .insertInto("dataStreamPoints")
      .values({ dataStreamIntId: stream.id, dataPointIntId: point.id, position: 0 })
      .execute();
    await deleteProducts(db, caller, [product.id]);
    expect(await db.selectFrom("dataPoints").select("id").where("productIntId", "=", product.id).execute()).toEqual([]);
    expect(
      await db
        .selectFrom("dataStreamPoints")
        .select("dataPointIntId")
        .where("dataStreamIntId", "=", stream.id)
        .execute(),
    ).toEqual([]);
  });

  it("authenticates a device by username and token and tells the adapter its namespace", async () => {
    const { db, caller, product } = await setup();
    const d = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "d",
      token: "token-123456",
      upLinkSystem: 1,
      authType: 1,
    });
    const ok = await authenticateDevice(db, {
      protocol: 1,
      clientIp: "1.2.3.4",
      credentials: { kind: "token", clientId: d.deviceId, username: d.deviceUsername, token: "token-123456" },
    });
    expect(ok).toMatchObject({
      ok: true,
      device: { deviceIntId: d.id, tenantId: caller.tenantId, mountpoint: `d/${d.id}/`, defaultDownlinkTopic: "inbox" },
    });
    // MQTT over WebSocket is the same protocol family.
    expect(
      (
        await authenticateDevice(db, {
          protocol: 6,
          clientIp: "",
          credentials: { kind: "token", clientId: "", username: d.deviceUsername, token: "token-123456" },
        })
      ).ok,
    ).toBe(true);
  });

  it("hands the adapter the device's policies with its session", async () => {
    const { db, caller, product } = await setup();
    const d = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "d",
      token: "token-123456",
      upLinkSystem: 1,
      authType: 1,
    });
    const p = await db
      .insertInto("policies")
      .values({
        tenantId: caller.tenantId,
        userIntId: caller.userIntId,
        name: "no secrets",
        topic: "secret/#",
        access: 3,
        allow: 0,
        description: null,
        createAt: 0,
        updateAt: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db.insertInto("devicePolicies").values({ deviceIntId: d.id, policyIntId: p.id, createAt: 0 }).execute();
    const ok = await authenticateDevice(db, {
      protocol: 1,
      clientIp: "",
      credentials: { kind: "token", clientId: "", username: d.deviceUsername, token: "token-123456" },
    });
    expect(ok).toMatchObject({ ok: true, policies: [{ id: p.id, topic: "secret/#", access: 3, allow: false }] });
  });

  it("refuses wrong tokens, blocked devices and other protocols, logging each with status 2", async () => {
    const { db, caller, product } = await setup();
    const d = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "d",
      token: "token-123456",
      upLinkSystem: 1,
      authType: 1,
    });
    const creds = (token: string) => ({ kind: "token" as const, clientId: "", username: d.deviceUsername, token });
    expect(
      await authenticateDevice(db, { protocol: 1, clientIp: "9.9.9.9", credentials: creds("wrong-token!") }),
    ).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect(
      await authenticateDevice(db, { protocol: 2, clientIp: "9.9.9.9", credentials: creds("token-123456") }),
    ).toMatchObject({ ok: false, result: "NOT_ALLOWED" });
    await db.updateTable("devices").set({ blocked: 1 }).where("id", "=", d.id).execute();
    expect(
      await authenticateDevice(db, { protocol: 1, clientIp: "9.9.9.9", credentials: creds("token-123456") }),
    ).toMatchObject({ ok: false, result: "BLOCKED" });
    const logs = await listConnectLogs(db, caller, { page: 1, limit: 10 }, { deviceIntId: d.id });
    expect(logs.items.map((l) => [l.connectStatus, l.ip, l.deviceId])).toEqual(
      Array(3).fill([2, "9.9.9.9", d.deviceId]),
    );
    expect(logs.items.map((l) => l.reason)).toEqual([
      "device is blocked",
      "device's product uses another protocol",
      "unknown username or wrong token",
    ]);
  });

  it("records an unknown username with no tenant, so no tenant sees it", async () => {
    const { db, caller } = await setup();
    const r = await authenticateDevice(db, {
      protocol: 1,
      clientIp: "5.5.5.5",
      credentials: { kind: "token", clientId: "ghost", username: "nobody", token: "x" },
    });
    expect(r).toMatchObject({ ok: false, result: "BAD_CREDENTIALS" });
    expect((await listConnectLogs(db, caller, { page: 1, limit: 10 }, { ipLike: "5.5.5.5" })).count).toBe(0);
    const row = await db.selectFrom("connectLogs").selectAll().where("ip", "=", "5.5.5.5").executeTakeFirstOrThrow();
    expect(row).toMatchObject({ tenantId: null, deviceId: "ghost", connectStatus: 2 });
  });
});
