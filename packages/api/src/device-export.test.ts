import { afterAll, describe, expect, it } from "vitest";
import { engines } from "@iot/registry/test-engines";
import { download, finished, transferApp } from "./device-transfer-fixture.js";
import { DEVICE_COLUMNS } from "./transfer/device-columns.js";

afterAll(async () => {
  for (const e of engines) await e.cleanup();
});

describe.each(engines)("device export on $name", (engine) => {
  const setup = () => transferApp(engine);

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
});
