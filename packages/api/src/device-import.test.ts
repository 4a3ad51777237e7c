import { afterAll, describe, expect, it } from "vitest";
import { engines } from "@iot/registry/test-engines";
import { finished, transferApp, upload } from "./device-transfer-fixture.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("device import on $name", (engine) => {
  const setup = (deps?: Parameters<typeof transferApp>[1]) => transferApp(engine, deps);

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
    // Read every 5 ms while the import runs: the samples must catch it part way.
    const task = await finished(t, token, res.body.statusUrl, {
      intervalMs: 5,
      onRead: (status) => seen.push(status.progress),
    });
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
    // Read every 2 ms while the import runs: the samples must catch it part way.
    const task = await finished(t, token, res.body.statusUrl, {
      intervalMs: 2,
      onRead: (status) => seen.push({ progress: status.progress, message: status.message }),
    });
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
});
