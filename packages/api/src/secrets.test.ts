import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "./test-app.js";

/**
 * Least privilege: a viewer (user or application key) reads records without
 * their secrets — device and gateway `token`, LoRa keys, certificate `key` —
 * while admins and operators see them as the spec says.
 */
describe.each(["1", "2"] as const)("secrets in records (Form %s)", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let admin: string;
  let operator: string;
  let viewer: string;
  let viewerKey: Record<string, string>;
  const ids = { device: 0, gateway: 0, group: 0, cert: 0, lora: 0 };
  const secrets: string[] = [];

  beforeAll(async () => {
    t = await testApp(form);
    admin = await t.login();
    const call = (m: string, p: string, body?: unknown) => t.call(m, p, body, admin);
    for (const [username, role] of [
      ["op", "operator"],
      ["view", "viewer"],
    ])
      expect((await call("POST", "/users", { username, password: `${username}-pass-1`, role })).status).toBe(201);
    operator = await t.login("op", "op-pass-1");
    viewer = await t.login("view", "view-pass-1");
    const key = (await call("POST", "/applications", { appName: "dashboard", role: "viewer" })).body;
    viewerKey = { authorization: `Basic ${Buffer.from(`${key.appID}:${key.appToken}`).toString("base64")}` };

    const product = (await call("POST", "/products", { productName: "p", cloudProtocol: 1, description: "d" })).body;
    const kind = form === "1" ? { deviceType: 1, upLinkSystem: 1 } : { deviceType: 0 };
    const device = (
      await call("POST", "/devices", { productID: product.productID, deviceName: "d", authType: 1, ...kind })
    ).body;
    const gateway = (
      await call("POST", "/gateways", {
        productID: product.productID,
        gatewayName: "g",
        gatewayProtocol: 1,
        authType: 1,
      })
    ).body;
    const group = (await call("POST", "/groups", { productID: product.productID, groupName: "g", description: "d" }))
      .body;
    await call("POST", `/groups/${group.id}/devices`, { ids: [device.id] });
    const cert = (await call("POST", "/certs", { name: "c", enable: 1 })).body;
    Object.assign(ids, { device: device.id, gateway: gateway.id, group: group.id, cert: cert.id });
    secrets.push(device.token, gateway.token, cert.key.content);
    if (form === "1") {
      const lora = await call("POST", "/products", { productName: "lora", cloudProtocol: 4 });
      const keys = { appKey: "2B7E151628AED2A6ABF7158809CF4F3C", nwkSKey: "2B7E151628AED2A6ABF7158809CF4F3D" };
      const d = await call("POST", "/devices", {
        productID: lora.body.productID,
        deviceName: "l",
        deviceType: 1,
        upLinkSystem: 1,
        deviceID: "70B3D57ED0000001",
        lora: { type: "otaa", appEUI: "70B3D57ED0000000", appKey: keys.appKey, fcntCheck: 1, canJoin: true },
      });
      expect(d.status).toBe(201);
      ids.lora = d.body.id;
      secrets.push(keys.appKey);
    }
    for (const s of secrets) expect(s).toBeTruthy();
  });
  afterAll(() => t.close());

  const reads = () => [
    "/devices",
    `/devices/${ids.device}`,
    `/groups/${ids.group}/devices`,
    "/gateways",
    `/gateways/${ids.gateway}`,
    `/devices/${ids.gateway}`,
    "/certs",
    `/certs/${ids.cert}`,
    ...(form === "1" ? [`/devices/${ids.lora}`] : []),
  ];

  it("answers viewers, users and keys alike, every record without token, LoRa keys or private key", async () => {
    for (const [who, headers] of [
      ["viewer", { authorization: `Bearer ${viewer}` }],
      ["viewer key", viewerKey],
    ] as const) {
      for (const path of reads()) {
        const r = await t.call("GET", path, undefined, undefined, headers);
        expect(r.status, `${who} ${path}`).toBe(200);
        const text = JSON.stringify(r.body);
        for (const s of secrets) expect(text, `${who} ${path}`).not.toContain(s);
        expect(text, `${who} ${path}`).not.toMatch(/"(token|key|appKey|nwkSKey|appSKey)":/);
      }
    }
    const detail = (await t.call("GET", `/devices/${ids.device}`, undefined, viewer)).body;
    expect(detail).toMatchObject({ id: ids.device, deviceUsername: expect.any(String) });
    expect(detail).not.toHaveProperty("token");
    const cert = (await t.call("GET", `/certs/${ids.cert}`, undefined, viewer)).body;
    expect(cert).toMatchObject({ cert: expect.stringContaining("BEGIN CERTIFICATE"), root: expect.any(String) });
    expect(cert).not.toHaveProperty("key");
    if (form === "1")
      expect((await t.call("GET", `/devices/${ids.lora}`, undefined, viewer)).body.lora).toEqual({
        type: "otaa",
        appEUI: "70B3D57ED0000000",
        fcntCheck: 1,
        canJoin: true,
      });
  });

  it("answers admins and operators every secret as the spec shows it", async () => {
    for (const token of [admin, operator]) {
      const seen = (await Promise.all(reads().map((p) => t.call("GET", p, undefined, token))))
        .map((r) => JSON.stringify(r.body))
        .join("\n");
      for (const s of secrets) expect(seen).toContain(JSON.stringify(s).slice(1, -1));
      expect((await t.call("GET", `/devices/${ids.device}`, undefined, token)).body.token).toBe(secrets[0]);
      expect((await t.call("GET", `/certs/${ids.cert}`, undefined, token)).body.key).toBe(secrets[2]);
    }
  });

  it("never shows application tokens to viewers: keys are for admins only", async () => {
    for (const headers of [{ authorization: `Bearer ${viewer}` }, viewerKey]) {
      expect((await t.call("GET", "/applications", undefined, undefined, headers)).status).toBe(403);
      expect((await t.call("GET", "/applications/1", undefined, undefined, headers)).status).toBe(403);
    }
  });
});
