import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { authenticateDevice } from "./device-auth.js";
import { authenticateTokens, tokenStamp, type TokenAuthRequest } from "./token-auth.js";
import { createDevice } from "./devices.js";
import { bindDevicePolicies } from "./policy-bindings.js";
import { createPolicy } from "./policies.js";
import { createProduct } from "./products.js";
import { writeRetained } from "./retained.js";
import { addSubscription } from "./subscriptions.js";
import { twoTenants } from "./test-tenants.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("token credentials of a batch on $name", (engine) => {
  it("are answered in request order as one-by-one checks answer them, with the same connect logs", async () => {
    const { db, caller, other } = await twoTenants(engine);
    const lamps = await createProduct(db, caller, { productName: "Lamps", cloudProtocol: 1 });
    const meters = await createProduct(db, caller, { productName: "Meters", cloudProtocol: 2 });
    const theirs = await createProduct(db, other, { productName: "Lamps", cloudProtocol: 1 });
    const device = (c: typeof caller, productId: string, deviceName: string, blocked = 0) =>
      createDevice(db, c, {
        productId,
        deviceName,
        upLinkSystem: 1,
        authType: 1,
        token: `${deviceName}-token-1`,
        blocked,
      });
    const a = await device(caller, lamps.productId, "a");
    const b = await device(caller, lamps.productId, "b");
    const blocked = await device(caller, lamps.productId, "c", 1);
    const coap = await device(caller, meters.productId, "m");
    const x = await device(other, theirs.productId, "x");
    const deny = await createPolicy(db, caller, { name: "no secrets", topic: "secret/#", access: 3, allow: 0 });
    const allow = await createPolicy(db, caller, { name: "all", topic: "#", access: 3, allow: 1 });
    await bindDevicePolicies(db, caller, a.id, [allow.id, deny.id]);
    await addSubscription(db, caller, a.id, { topic: "cmd/#", qos: 1 });
    await addSubscription(db, caller, a.id, { topic: "cfg", qos: 0 });
    await addSubscription(db, other, x.id, { topic: "cmd/#", qos: 0 });
    await writeRetained(db, {
      tenantId: caller.tenantId,
      deviceIntId: a.id,
      direction: "command",
      topic: "cfg",
      payload: Buffer.from("on"),
      qos: 1,
    });

    const ask = (
      d: { deviceUsername: string; deviceName: string },
      over: Partial<TokenAuthRequest["credentials"]> = {},
    ) =>
      ({
        protocol: 1,
        clientIp: "9.9.9.9",
        credentials: {
          kind: "token",
          clientId: "",
          username: d.deviceUsername,
          token: `${d.deviceName}-token-1`,
          ...over,
        },
      }) as TokenAuthRequest;
    const requests = [
      ask(a, { clientId: a.deviceId }),
      ask({ deviceUsername: "nobody", deviceName: "nobody" }, { clientId: "ghost" }),
      ask(b, { token: "wrong-token!" }),
      ask(blocked),
      ask(a, { clientId: b.deviceId }),
      ask(x),
      ask(coap),
      ask(b),
      ask(a),
    ];
    const now = 1_700_000_000_000;
    const logs = async () => {
      const rows = await db.selectFrom("connectLogs").selectAll().orderBy("id").execute();
      await db.deleteFrom("connectLogs").execute();
      return rows.map(({ id: _id, ...row }) => row);
    };

    const batch = await authenticateTokens(db, requests, now);
    const batchLogs = await logs();
    const single = [];
    for (const r of requests) single.push(await authenticateDevice(db, r, now));
    expect(batch).toEqual(single);
    expect(batchLogs).toEqual(await logs());

    expect(batch.map((o) => (o.ok ? "OK" : o.result))).toEqual([
      "OK",
      "BAD_CREDENTIALS",
      "BAD_CREDENTIALS",
      "BLOCKED",
      "NOT_ALLOWED",
      "OK",
      "NOT_ALLOWED",
      "OK",
      "OK",
    ]);
    expect(batch[0]).toMatchObject({
      ok: true,
      device: { deviceIntId: a.id, tenantId: caller.tenantId, mountpoint: `d/${a.id}/` },
      policies: [
        { id: deny.id, topic: "secret/#", allow: false },
        { id: allow.id, topic: "#", allow: true },
      ].sort((p, q) => p.id - q.id),
      subscriptions: [
        { topic: "cmd/#", qos: 1 },
        { topic: "cfg", qos: 0 },
      ],
      retained: [{ topic: "cfg", payload: Buffer.from("on"), qos: 1, properties: "" }],
    });
    expect(batch[5]).toMatchObject({ ok: true, policies: [], subscriptions: [{ topic: "cmd/#", qos: 0 }] });
    expect(batch[7]).toMatchObject({ ok: true, policies: [], subscriptions: [] });
    expect(batch[7]).not.toHaveProperty("retained");
    expect(batchLogs.map((l) => [l.tenantId, l.deviceId, l.connectStatus, l.reason])).toEqual([
      [null, "ghost", 2, "unknown username or wrong token"],
      [caller.tenantId, b.deviceId, 2, "unknown username or wrong token"],
      [caller.tenantId, blocked.deviceId, 2, "device is blocked"],
      [caller.tenantId, a.deviceId, 2, "client id is not the device's deviceID"],
      [caller.tenantId, coap.deviceId, 2, "device's product uses another protocol"],
    ]);
  });
});

describe("tokenStamp", () => {
  it("stays the digest earlier versions made, so sessions re-announced after an upgrade keep their stamp", () => {
    // SHA-256 of "user", NUL, "tokén" (UTF-8), base64url, first 22 characters, as made with createHash before.
    expect(tokenStamp("user", "tok\u00e9n")).toBe("t:YpFxx9Brg10PFLIohvTDpA");
  });
});
