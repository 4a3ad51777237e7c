import { afterAll, describe, expect, it } from "vitest";
import { engines } from "@iot/registry/test-engines";
import { testApp } from "./test-app.js";
import { DEVICE_COLUMNS } from "./transfer/device-columns.js";
import { parseDeviceCsv } from "./transfer/device-csv.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

type App = Awaited<ReturnType<typeof testApp>>;

/** Sends a CSV body (text/csv, or a multipart form's `file`) to POST /devices_import. */
async function upload(t: App, token: string, csv: string | Uint8Array, as: "csv" | "multipart" = "csv") {
  const bytes = typeof csv === "string" ? new TextEncoder().encode(csv) : csv;
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let body: FormData | Uint8Array;
  if (as === "multipart") {
    const form = new FormData();
    form.append("file", new Blob([bytes], { type: "text/csv" }), "devices.csv");
    body = form;
  } else {
    headers["content-type"] = "text/csv";
    body = bytes;
  }
  const res = await t.app.request("/api/v1/devices_import", { method: "POST", headers, body });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Polls a task until it has ended (status 3 or 4) and answers its last status record. */
async function finished(t: App, token: string, statusUrl: string) {
  for (let i = 0; i < 200; i++) {
    const r = await t.call("GET", statusUrl, undefined, token);
    if (r.body.status >= 3) return r.body;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`task ${statusUrl} did not end`);
}

async function download(t: App, token: string, url: string) {
  const res = await t.app.request(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

describe.each(engines)("device import and export on $name", (engine) => {
  const setup = async (deps = {}) => {
    const t = await testApp("1", { open: async () => (await engine.open()).store, deps });
    const token = await t.login();
    await t.addTenant("tenant2");
    const eve = await t.addUser("tenant2", "eve", "admin");
    const product = async (as: string, productName: string, cloudProtocol: number) =>
      (await t.call("POST", "/products", { productName, cloudProtocol }, as)).body.productID as string;
    return { t, token, eve: eve.token, product };
  };

  it("creates the good rows of a file and reports each bad row with its line and FORM_INVALID errors", async () => {
    const { t, token, product } = await setup();
    const lamps = await product(token, "Lamps", 1);
    await product(token, "Meters", 7);
    // A gateway already in the store, with a slave at unit 7.
    const gw0 = (
      await t.call(
        "POST",
        "/gateways",
        { productID: lamps, gatewayName: "gw0", gatewayProtocol: 7, deviceID: "gw-0", authType: 1 },
        token,
      )
    ).body;
    expect(gw0.id).toBeGreaterThan(0);
    const meters = (await t.call("GET", "/products?productName_like=Meters", undefined, token)).body.items[0].productID;
    const pre = await t.call(
      "POST",
      "/devices",
      { productID: meters, deviceName: "pre", upLinkSystem: 2, gateway: gw0.id, modBusIndex: 7, authType: 1 },
      token,
    );
    expect(pre.status).toBe(201);
    const csv = [
      "deviceName,product,authType,upLinkSystem,gateway,deviceID,modBusIndex,deviceType",
      "gw1,Meters,1,,,gw-1,,2", // 2: a gateway, by product name
      "s1,Meters,1,2,gw-1,s-1,1,1", // 3: a slave of the gateway created above
      "s2,Meters,1,2,gw-1,s-2,1,1", // 4: modBusIndex 1 taken by line 3 of the same file
      "s3,Meters,1,2,gw-1,s-3,,1", // 5: Modbus needs a modBusIndex
      `m1,${lamps},1,1,,m-1,,`, // 6: by productID
      "bad,Nope,1,1,,,,", // 7: no such product
      `x,${lamps},9,1,,,,`, // 8: authType out of range
      `y,${lamps},1,2,gw-missing,,,`, // 9: no such gateway
      "s7,Meters,1,2,gw-0,s-7,7,1", // 10: unit 7 already used in the store
      `"multi`,
      `line",${lamps},1,1,,m-2,,`, // 11-12: a quoted name over two lines, good
    ].join("\n");
    const changesBefore = t.configChanges.length;
    const res = await upload(t, token, csv, "multipart");
    expect(res.status).toBe(202);
    expect(res.body.statusUrl).toMatch(/^\/task_status\/[0-9a-f-]{36}$/);
    const task = await finished(t, token, res.body.statusUrl);
    expect(task).toMatchObject({ status: 3, progress: 100 });
    // The imported slaves count for their gateways' pushed Modbus configurations: the registry is told once done.
    await expect.poll(() => t.configChanges.length).toBe(changesBefore + 1);
    expect(task.result).toEqual({
      created: 4,
      failed: 6,
      errors: [
        { line: 4, errors: { modBusIndex: "already used by a sibling device" } },
        { line: 5, errors: { modBusIndex: "required for Modbus devices" } },
        { line: 7, errors: { product: "no such product" } },
        { line: 8, errors: { authType: "must be one of 1, 2" } },
        { line: 9, errors: { gateway: "no such gateway" } },
        { line: 10, errors: { modBusIndex: "already used by a sibling device" } },
      ],
    });
    const s1 = (await t.call("GET", "/devices?deviceID_like=s-1", undefined, token)).body.items;
    expect(s1).toHaveLength(1);
    const gw1 = (await t.call("GET", "/gateways", undefined, token)).body.items.find((g: any) => g.deviceID === "gw-1");
    expect(s1[0]).toMatchObject({ gateway: gw1.id, modBusIndex: 1, upLinkSystem: 2 });
    expect((await t.call("GET", "/devices?deviceID_like=m-2", undefined, token)).body.items[0].deviceName).toBe(
      "multi\nline",
    );
    await t.close();
  });

  it("advances progress while a large file is imported, and the API keeps answering meanwhile", async () => {
    const { t, token, product } = await setup();
    const lamps = await product(token, "Lamps", 1);
    const rows = Array.from({ length: 3000 }, (_, i) => `d${i},${lamps},1,1`);
    const res = await upload(t, token, ["deviceName,product,authType,upLinkSystem", ...rows].join("\n"));
    const seen: number[] = [];
    let task: Record<string, any> = {};
    for (let i = 0; i < 2000 && !(task.status >= 3); i++) {
      task = (await t.call("GET", res.body.statusUrl, undefined, token)).body;
      seen.push(task.progress);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(seen.some((p) => p > 0 && p < 100)).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(task.result).toEqual({ created: 3000, failed: 0, errors: [] });
    await t.close();
  });

  it("advances progress through a file whose rows are all bad, naming the rows read", async () => {
    const { t, token, product } = await setup();
    const lamps = await product(token, "Lamps", 1);
    const rows = Array.from({ length: 6000 }, (_, i) => `d${i},${lamps},9,1`);
    const res = await upload(t, token, ["deviceName,product,authType,upLinkSystem", ...rows].join("\n"));
    const seen: Array<{ progress: number; message: string }> = [];
    let task: Record<string, any> = {};
    for (let i = 0; i < 2000 && !(task.status >= 3); i++) {
      task = (await t.call("GET", res.body.statusUrl, undefined, token)).body;
      seen.push({ progress: task.progress, message: task.message });
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const between = seen.filter((s) => s.progress > 0 && s.progress < 100);
    expect(between.length).toBeGreaterThan(0);
    for (const s of between) {
      const read = Number(/^(\d+) of 6000 rows$/.exec(s.message)?.[1]);
      expect(s.progress).toBe(Math.floor((read * 100) / 6000));
    }
    expect(task.result).toMatchObject({ created: 0, failed: 6000 });
    await t.close();
  });

  it("answers 400 at once for a file that is not CSV, has unknown columns or is too large", async () => {
    const { t, token } = await setup({ importMaxBytes: 2_000 });
    const unknown = await upload(t, token, "deviceName,product,colour,size\na,b,c,d\n");
    expect([unknown.status, unknown.body.errors]).toEqual([400, { columns: "unknown columns: colour, size" }]);
    const binary = await upload(t, token, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0xff, 0xfe]), "multipart");
    expect([binary.status, Object.keys(binary.body.errors)]).toEqual([400, ["file"]]);
    const large = await upload(t, token, `deviceName,product\n${"a,b\n".repeat(600)}`);
    expect([large.status, large.body.errors]).toEqual([400, { file: "at most 2000 bytes" }]);
    const missing = await upload(t, token, "deviceName,IMEI\na,1\n");
    expect(missing.body.errors).toEqual({ columns: "missing columns: product" });
    const renamed = await upload(t, token, "deviceName,productID\na,1\n");
    expect(renamed.body.errors).toEqual({ columns: "unknown columns: productID; missing columns: product" });
    const res = await t.app.request("/api/v1/devices_import", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(400);
    // Nothing was started.
    expect(await t.store.db.selectFrom("tasks").select("id").execute()).toEqual([]);
    await t.close();
  });

  it("exports the filtered devices as CSV that only the same tenant may download, until it expires", async () => {
    const { t, token, eve, product } = await setup();
    const lamps = await product(token, "Lamps", 1);
    const valves = await product(token, "Valves", 1);
    for (const [p, name] of [
      [lamps, "l1"],
      [lamps, "l2"],
      [valves, "v1"],
    ] as const)
      await t.call(
        "POST",
        "/devices",
        {
          productID: p,
          deviceName: name,
          deviceID: name,
          upLinkSystem: 1,
          authType: 1,
          IMSI: "4600",
          description: 'say "hi", ok',
        },
        token,
      );
    const res = await t.call("GET", `/devices_export?productID=${lamps}`, undefined, token);
    expect(res.status).toBe(202);
    const task = await finished(t, token, res.body.statusUrl);
    expect(task).toMatchObject({ status: 3, progress: 100, result: { total: 2 } });
    const url = task.result.downloadUrl as string;
    expect(url).toBe(`/api/v1/devices_export/${task.taskID}/file`);
    const file = await download(t, token, url);
    expect(file.status).toBe(200);
    expect(file.type).toMatch(/^text\/csv/);
    const lines = file.text.trim().split("\n");
    expect(lines[0]).toBe(DEVICE_COLUMNS.join(","));
    expect(lines).toHaveLength(3);
    const l1 = (await t.call("GET", "/devices?deviceID_like=l1", undefined, token)).body.items[0];
    expect(lines[1]).toBe(
      `l1,1,${lamps},1,,l1,${l1.deviceUsername},${l1.token},,,1,,4600,,,,,,,,,,,,"say ""hi"", ok",0,Lamps`,
    );
    expect((await download(t, eve, url)).status).toBe(404);
    expect((await t.call("GET", res.body.statusUrl, undefined, eve)).status).toBe(404);
    // Expired: 404, and the file is gone.
    await t.store.db
      .updateTable("exportFiles")
      .set({ expiresAt: Date.now() - 1 })
      .execute();
    expect((await download(t, token, url)).status).toBe(404);
    expect(await t.store.db.selectFrom("exportFiles").select("taskIntId").execute()).toEqual([]);
    await t.close();
  });

  it("leaves tokens out of a viewer's export", async () => {
    const { t, token, product } = await setup();
    const lamps = await product(token, "Lamps", 1);
    await t.call("POST", "/devices", { productID: lamps, deviceName: "l1", upLinkSystem: 1, authType: 1 }, token);
    const viewer = await t.addUser(
      (await t.call("GET", "/devices", undefined, token)).body.items[0].tenantID,
      "vic",
      "viewer",
    );
    const task = await finished(
      t,
      viewer.token,
      (await t.call("GET", "/devices_export", undefined, viewer.token)).body.statusUrl,
    );
    const row = (await download(t, viewer.token, task.result.downloadUrl)).text.trim().split("\n")[1]!.split(",");
    expect(row[DEVICE_COLUMNS.indexOf("token")]).toBe("");
    await t.close();
  });

  it("refuses a viewer the download of an export that holds tokens, as it refuses them at export", async () => {
    const { t, token, product } = await setup();
    const lamps = await product(token, "Lamps", 1);
    await t.call("POST", "/devices", { productID: lamps, deviceName: "l1", upLinkSystem: 1, authType: 1 }, token);
    const l1 = (await t.call("GET", "/devices", undefined, token)).body.items[0];
    const viewer = await t.addUser(l1.tenantID, "vic", "viewer");
    const operator = await t.addUser(l1.tenantID, "otto", "operator");
    const task = await finished(t, token, (await t.call("GET", "/devices_export", undefined, token)).body.statusUrl);
    const denied = await download(t, viewer.token, task.result.downloadUrl);
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text).errorCode).toBe("PERMISSION_DENIED");
    expect(denied.text).not.toContain(l1.token);
    expect((await download(t, operator.token, task.result.downloadUrl)).text).toContain(l1.token);
    expect((await download(t, token, task.result.downloadUrl)).status).toBe(200);
    await t.close();
  });

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
    const exportOf = async (app: App, as: string) => {
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

  it("reports a row whose JSON is nested too deep and keeps the good rows before and after it", async () => {
    const { t, token, product } = await setup();
    const lamps = await product(token, "Lamps", 1);
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const csv = [
      "deviceName,product,authType,upLinkSystem,location,lora",
      `a,${lamps},1,1,"{""x"":1}",`,
      `b,${lamps},1,1,${deep},`,
      `c,${lamps},1,1,,"{""type"":${deep}}"`,
      `d,${lamps},1,1,,`,
    ].join("\n");
    const task = await finished(t, token, (await upload(t, token, csv)).body.statusUrl);
    expect(task.status).toBe(3);
    expect(task.result).toEqual({
      created: 2,
      failed: 2,
      errors: [
        { line: 3, errors: { location: "at most 32 levels of nested arrays and objects" } },
        { line: 4, errors: { lora: "at most 32 levels of nested arrays and objects" } },
      ],
    });
    const names = (await t.call("GET", "/devices", undefined, token)).body.items.map((d: any) => d.deviceName);
    expect(names.sort()).toEqual(["a", "d"]);
    expect(t.errors).toEqual([]);
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
