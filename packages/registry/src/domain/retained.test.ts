import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { bootstrapAdmin } from "./bootstrap.js";
import type { Caller } from "./caller.js";
import { createDevice, deleteDevices } from "./devices.js";
import { createProduct } from "./products.js";
import { clearRetained, listRetained, retainedOfDevices, writeRetained } from "./retained.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

const page = { page: 1, limit: 10 };
const bytes = (s: string) => new Uint8Array(Buffer.from(s));

describe.each(engines)("retained messages on $name", (engine) => {
  async function setup() {
    const { store } = await engine.open();
    const db = store.db;
    const boot = await bootstrapAdmin(db, { username: "root", password: "pw-1234567", tenantName: "T" });
    const caller: Caller = {
      userIntId: 1,
      username: "root",
      tenantId: boot.tenantId!,
      role: "admin",
      serviceAdmin: true,
    };
    const other: Caller = { ...caller, userIntId: 99, username: "eve", tenantId: "other", serviceAdmin: false };
    const product = await createProduct(db, caller, { productName: "Meter", cloudProtocol: 1 });
    const d = await createDevice(db, caller, {
      productId: product.productId,
      deviceName: "d",
      upLinkSystem: 1,
      authType: 1,
    });
    const write = (direction: "command" | "uplink", topic: string, payload: string, at: number, extra = {}) =>
      writeRetained(
        db,
        { tenantId: caller.tenantId, deviceIntId: d.id, direction, topic, payload: bytes(payload), qos: 1, ...extra },
        at,
      );
    return { db, caller, other, d, write };
  }

  it("keeps one retained message per direction and topic, the last one written, with its bytes and properties", async () => {
    const { db, caller, d, write } = await setup();
    await write("command", "inbox", "on", 1_000, { controlLogIntId: 7, properties: '{"contentType":"text/plain"}' });
    await write("command", "inbox", "off", 2_000, { controlLogIntId: 8 });
    await write("uplink", "inbox", "reported", 1_500);
    const r = await listRetained(db, caller, d.id, {}, page);
    expect(r.count).toBe(2);
    expect(r.items.map((m) => [m.direction, Buffer.from(m.payload).toString(), m.updateAt])).toEqual([
      ["command", "off", 2_000],
      ["uplink", "reported", 1_500],
    ]);
    expect(r.items[0]).toMatchObject({ controlLogIntId: 8, properties: null, qos: 1, topic: "inbox" });
  });

  it("clears a topic's retained message when an empty one is written", async () => {
    const { db, caller, d, write } = await setup();
    await write("uplink", "state", "42", 1_000);
    await write("uplink", "state", "", 2_000);
    expect((await listRetained(db, caller, d.id, {}, page)).count).toBe(0);
  });

  it("lists by direction and by topic filter, wildcards included", async () => {
    const { db, caller, d, write } = await setup();
    await write("command", "cfg/a", "1", 1_000);
    await write("uplink", "state/t", "2", 2_000);
    await write("uplink", "state/h", "3", 3_000);
    const uplinks = await listRetained(db, caller, d.id, { direction: "uplink" }, page);
    expect(uplinks.items.map((m) => m.topic)).toEqual(["state/h", "state/t"]);
    const one = await listRetained(db, caller, d.id, { topic: "cfg/a" }, page);
    expect(one.items.map((m) => m.topic)).toEqual(["cfg/a"]);
    const wild = await listRetained(db, caller, d.id, { topic: "state/+" }, { ...page, limit: 1 });
    expect(wild).toMatchObject({ count: 2, limit: 1 });
    expect(wild.items.map((m) => m.topic)).toEqual(["state/h"]);
    await expect(listRetained(db, caller, d.id, { topic: "a/#/b" }, page)).rejects.toMatchObject({
      code: "FORM_INVALID",
      errors: { topic: expect.any(String) },
    });
  });

  it("clears one topic of one direction or both, and answers DATA_NOT_FOUND for a topic with none", async () => {
    const { db, caller, d, write } = await setup();
    await write("command", "t", "c", 1_000);
    await write("uplink", "t", "u", 2_000);
    expect(await clearRetained(db, caller, d.id, "t", "uplink")).toEqual(["uplink"]);
    expect((await listRetained(db, caller, d.id, {}, page)).items.map((m) => m.direction)).toEqual(["command"]);
    expect(await clearRetained(db, caller, d.id, "t")).toEqual(["command"]);
    await expect(clearRetained(db, caller, d.id, "t")).rejects.toMatchObject({
      code: "DATA_NOT_FOUND",
      errors: { topic: "not found" },
    });
  });

  it("answers another tenant's device as not found", async () => {
    const { db, other, d, write } = await setup();
    await write("command", "t", "c", 1_000);
    await expect(listRetained(db, other, d.id, {}, page)).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
    await expect(clearRetained(db, other, d.id, "t")).rejects.toMatchObject({ code: "DATA_NOT_FOUND" });
  });

  it("pushes one message per topic to the adapter, the newer of a command and an uplink", async () => {
    const { db, d, write } = await setup();
    await write("command", "t", "desired", 2_000);
    await write("uplink", "t", "reported", 1_000);
    await write("uplink", "u", "x", 3_000, { properties: '{"userProperties":{"a":"b"}}' });
    const pushed = (await retainedOfDevices(db, [d.id])).get(d.id)!;
    expect(pushed.map((m) => [m.topic, Buffer.from(m.payload).toString(), m.properties])).toEqual([
      ["t", "desired", ""],
      ["u", "x", '{"userProperties":{"a":"b"}}'],
    ]);
  });

  it("forgets a deleted device's retained messages", async () => {
    const { db, caller, d, write } = await setup();
    await write("command", "t", "c", 1_000);
    await deleteDevices(db, caller, [d.id]);
    expect((await retainedOfDevices(db, [d.id])).get(d.id)).toBeUndefined();
  });
});
