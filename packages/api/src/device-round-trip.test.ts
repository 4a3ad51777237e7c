import { afterAll, describe, expect, it } from "vitest";
import { engines } from "@iot/registry/test-engines";
import { download, finished, transferApp, upload } from "./device-transfer-fixture.js";
import { testApp, type TestApp } from "./test-app.js";
import { DEVICE_COLUMNS } from "./transfer/device-columns.js";
import { parseDeviceCsv } from "./transfer/device-csv.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("device export and re-import on $name", (engine) => {
  const setup = () => transferApp(engine);

  it("neutralises formula cells and round-trips a fleet with every column filled into an empty tenant", async () => {
    const { t, token, product } = await setup();
    const lamps = await product(token, "Lamps", 1);
    const meters = await product(token, "Meters", 7);
    const motes = await product(token, "Motes", 4);
    const post = async (path: string, body: Record<string, unknown>) => {
      const r = await t.call("POST", path, body, token);
      expect(r.status).toBe(201);
      return r.body as { id: number };
    };
    const texts = {
      manufacturer: "'plain quote",
      serialNumber: "\tSN-1",
      softVersion: "-1+2",
      hardwareVersion: "''@x",
      description: 'line one\nline "two", with a comma',
    };
    const gw = await post("/gateways", {
      productID: meters,
      gatewayName: "@gw",
      gatewayProtocol: 7,
      deviceID: "gw-1",
      authType: 1,
      token: "=gateway-token",
      location: { site: "=HYPERLINK(1)" },
      ...texts,
    });
    const lamp = await post("/devices", {
      productID: lamps,
      deviceName: "=cmd|' /C calc'!A0",
      upLinkSystem: 1,
      authType: 1,
      deviceID: "lamp-1",
      deviceUsername: "lamp-user",
      token: "+lamp-token-1",
      IMEI: "860000000000001",
      modBusIndex: 5,
      deviceType: 1,
      IMSI: "'=quoted",
      autoSub: 1,
      carrier: 2,
      physicalNetwork: 3,
      longitude: -122.4194,
      latitude: 1e-7,
      location: { city: "-Paris", deep: [[1, { a: null }]] },
      blocked: 1,
      ...texts,
    });
    await post("/devices", {
      productID: lamps,
      deviceName: "child",
      upLinkSystem: 3,
      parentDevice: lamp.id,
      authType: 1,
      location: -5,
    });
    await post("/devices", {
      productID: meters,
      deviceName: "+slave",
      upLinkSystem: 2,
      gateway: gw.id,
      modBusIndex: 3,
      authType: 1,
    });
    await post("/devices", {
      productID: motes,
      deviceName: "mote",
      upLinkSystem: 1,
      deviceID: "0011223344556677",
      lora: { type: "otaa", fcntCheck: 0, appEUI: "0011223344556677", appKey: "00".repeat(16), canJoin: true },
      location: "'=text location",
    });
    const exportOf = async (app: TestApp, as: string) => {
      const task = await finished(app, as, (await app.call("GET", "/devices_export", undefined, as)).body.statusUrl);
      expect(task.status).toBe(3);
      return (await download(app, as, task.result.downloadUrl)).text;
    };
    const csv = await exportOf(t, token);
    // No cell starts a formula: each such cell is written with a quote in front, and quoted.
    expect(csv).toContain(`"'=cmd|' /C calc'!A0"`);
    expect(csv).toContain(`"'+lamp-token-1"`);
    expect(csv).toContain(`"'''@x"`);
    expect(csv).toContain(`"'-1+2"`);
    expect(csv).toContain(",-122.4194,");
    const rows = parseDeviceCsv(new TextEncoder().encode(csv)).rows;
    for (const column of DEVICE_COLUMNS)
      expect(
        rows.some((r) => r.cells[column] !== undefined),
        column,
      ).toBe(true);

    // An empty tenant (of another service) with products of the same names takes the whole file back.
    const other = await testApp("1", { open: async () => (await engine.open()).store });
    const admin2 = await other.login();
    for (const [productName, cloudProtocol] of [
      ["Lamps", 1],
      ["Meters", 7],
      ["Motes", 4],
    ] as const)
      await other.call("POST", "/products", { productName, cloudProtocol }, admin2);
    const imported = await finished(other, admin2, (await upload(other, admin2, csv)).body.statusUrl);
    expect(imported.result).toEqual({ created: 5, failed: 0, errors: [] });
    // Its export is the same file but for the productIDs.
    const withoutProduct = (text: string) =>
      parseDeviceCsv(new TextEncoder().encode(text)).rows.map(({ cells }) => ({ ...cells, product: undefined }));
    expect(withoutProduct(await exportOf(other, admin2))).toEqual(withoutProduct(csv));
    const lamp2 = (await other.call("GET", "/devices?deviceID_like=lamp-1", undefined, admin2)).body.items[0];
    expect(lamp2).toMatchObject({ deviceName: "=cmd|' /C calc'!A0", IMSI: "'=quoted", ...texts, latitude: 1e-7 });
    await other.close();
    await t.close();
  });

  it("re-imports an export into another tenant: gateways, slaves and credentials come back the same", async () => {
    const { t, token, eve, product } = await setup();
    const meters = await product(token, "Meters", 7);
    const lamps = await product(token, "Lamps", 1);
    const gw = (
      await t.call(
        "POST",
        "/gateways",
        { productID: meters, gatewayName: "gw", gatewayProtocol: 7, authType: 1 },
        token,
      )
    ).body;
    await t.call(
      "POST",
      "/devices",
      { productID: meters, deviceName: "slave", upLinkSystem: 2, gateway: gw.id, modBusIndex: 3, authType: 1 },
      token,
    );
    await t.call(
      "POST",
      "/devices",
      { productID: lamps, deviceName: "lamp", upLinkSystem: 1, authType: 1, location: { x: 1 } },
      token,
    );
    const exported = await finished(
      t,
      token,
      (await t.call("GET", "/devices_export", undefined, token)).body.statusUrl,
    );
    expect(exported.result.total).toBe(3);
    const csv = (await download(t, token, exported.result.downloadUrl)).text;
    const before = (await t.call("GET", "/devices?_limit=100", undefined, token)).body.items;
    // The fleet moves: usernames are unique service-wide, so the old tenant lets them go first.
    const ids = [...before.map((d: any) => d.id), gw.id].join(",");
    for (const d of before) await t.call("DELETE", `/devices?ids=${d.id}`, undefined, token);
    expect((await t.call("DELETE", `/devices?ids=${ids}`, undefined, token)).status).toBe(204);
    // The other tenant has products of the same names (other productIDs).
    await product(eve, "Meters", 7);
    await product(eve, "Lamps", 1);
    const imported = await finished(t, eve, (await upload(t, eve, csv)).body.statusUrl);
    expect(imported.result).toEqual({ created: 3, failed: 0, errors: [] });
    const after = (await t.call("GET", "/devices?_limit=100", undefined, eve)).body.items;
    const pick = (d: any) => [d.deviceName, d.deviceID, d.deviceUsername, d.token, d.modBusIndex, d.location];
    expect(after.map(pick).sort()).toEqual(before.map(pick).sort());
    const gw2 = (await t.call("GET", "/gateways", undefined, eve)).body.items[0];
    expect(gw2).toMatchObject({ deviceID: gw.deviceID, deviceUsername: gw.deviceUsername });
    expect(after.find((d: any) => d.deviceName === "slave").gateway).toBe(gw2.id);
    await t.close();
  });
});
