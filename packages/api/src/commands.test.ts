import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDevice, type Caller } from "@iot/registry";
import { testApp } from "./test-app.js";

describe.each(["1", "2"] as const)("group commands and task status in Form %s", (form) => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let eveToken: string;
  let viewerToken: string;
  let admin: Caller;
  let productID: string;

  /** A group of `members` new devices; answers the group and the device ids. */
  const newGroup = async (name: string, members: number) => {
    const group = (await t.call("POST", "/groups", { productID, groupName: name, description: "d" }, token)).body as {
      id: number;
      groupID: string;
    };
    const ids: number[] = [];
    for (let i = 0; i < members; i++)
      ids.push(
        (
          await createDevice(t.store.db, admin, {
            productId: productID,
            deviceName: `${name}-${i}`,
            upLinkSystem: 1,
            authType: 1,
          })
        ).id,
      );
    if (ids.length > 0)
      expect((await t.call("POST", `/groups/${group.id}/devices`, { ids }, token)).status).toBeLessThan(300);
    return { ...group, ids };
  };
  const taskOf = async (statusUrl: string, as = token) => t.call("GET", statusUrl, undefined, as);
  const memberLogs = (deviceIntId: number) =>
    t.store.db
      .selectFrom("controlLogs")
      .select(["id", "publishStatus", "qos"])
      .where("deviceIntId", "=", deviceIntId)
      .orderBy("id", "desc")
      .execute();

  beforeAll(async () => {
    t = await testApp(form);
    const login = (await t.call("POST", "/login", { username: "admin", password: "admin-pass-1" })).body;
    token = login.token;
    admin = {
      userIntId: login.userIntID,
      username: "admin",
      tenantId: login.tenantID,
      role: "admin",
      serviceAdmin: true,
    };
    await t.addTenant("tenant2");
    ({ token: eveToken } = await t.addUser("tenant2", "eve", "admin"));
    ({ token: viewerToken } = await t.addUser(admin.tenantId, "viewer", "viewer"));
    productID = (await t.call("POST", "/products", { productName: "Lamps", cloudProtocol: 1, description: "p" }, token))
      .body.productID;
  });
  afterAll(() => t.close());

  it("answers group_publish with 201 and a statusUrl whose task reports progress and counts per member", async () => {
    const g = await newGroup("acked", 2);
    t.attachDevice(g.ids[0]!, admin.tenantId);
    const r = await t.call(
      "POST",
      "/group_publish",
      { groupID: g.groupID, ...(form === "1" ? { groupIntID: g.id } : {}), payload: '{"on":1}', needAck: 1 },
      token,
    );
    expect(r.status).toBe(201);
    expect(Object.keys(r.body)).toEqual(["statusUrl"]);
    expect(r.body.statusUrl).toMatch(/^\/task_status\/[0-9a-f-]{36}$/);
    const running = await taskOf(r.body.statusUrl);
    expect(running.status).toBe(200);
    expect(running.body).toEqual({
      status: 2,
      progress: 0,
      message: "waiting for 2 of 2 devices",
      taskID: r.body.statusUrl.split("/")[2],
      result: { total: 2, success: 0, failed: 0, pending: 2 },
    });

    // The connected member's adapter reports its PUBACK; the other one is queued until it connects.
    const [sent] = await memberLogs(g.ids[0]!);
    expect(sent).toMatchObject({ publishStatus: 1, qos: 1 });
    await t.commands.settle(sent!.id, 2);
    expect((await taskOf(r.body.statusUrl)).body).toMatchObject({
      status: 2,
      progress: 50,
      result: { total: 2, success: 1, failed: 0, pending: 1 },
    });
    const [queued] = await memberLogs(g.ids[1]!);
    await t.commands.settle(queued!.id, 0);
    expect((await taskOf(r.body.statusUrl)).body).toMatchObject({
      status: 4,
      progress: 100,
      message: "1 of 2 devices failed",
      result: { total: 2, success: 1, failed: 1, pending: 0 },
    });
    const logs = (await t.call("GET", `/groups/${g.id}/control_logs`, undefined, token)).body;
    expect(logs.items).toEqual([
      expect.objectContaining({ groupID: g.groupID, payload: '{"on":1}', publishStatus: 0, publishUser: "admin" }),
    ]);
  });

  it("sends needAck 0 (the default) only to members connected now and fails the others at once", async () => {
    const g = await newGroup("broadcast", 3);
    t.attachDevice(g.ids[1]!, admin.tenantId);
    const r = await t.call("POST", "/group_publish", { groupID: g.groupID, payload: "off" }, token);
    expect(r.status).toBe(201);
    const task = (await taskOf(r.body.statusUrl)).body;
    expect(task).toMatchObject({ status: 2, progress: 66, result: { total: 3, success: 0, failed: 2, pending: 1 } });
    expect((await memberLogs(g.ids[1]!))[0]).toMatchObject({ publishStatus: 1, qos: 0 });
    expect((await memberLogs(g.ids[0]!))[0]).toMatchObject({ publishStatus: 0, qos: 0 });
    const device = (await t.call("GET", `/devices/${g.ids[0]}/control_logs`, undefined, token)).body;
    expect(device.items[0]).toMatchObject({
      payload: "off",
      topic: "inbox",
      publishStatus: 0,
      publishStatusLabel: "Failed",
    });
  });

  it("sends qos 2 to each member at QoS 2, tracked like needAck 1, and refuses a qos that disagrees with needAck", async () => {
    const g = await newGroup("exactly-once", 1);
    t.attachDevice(g.ids[0]!, admin.tenantId);
    const r = await t.call("POST", "/group_publish", { groupID: g.groupID, payload: "once", qos: 2 }, token);
    expect(r.status).toBe(201);
    const [sent] = await memberLogs(g.ids[0]!);
    expect(sent).toMatchObject({ publishStatus: 1, qos: 2 });
    await t.commands.settle(sent!.id, 2);
    expect((await taskOf(r.body.statusUrl)).body).toMatchObject({
      status: 3,
      result: { total: 1, success: 1, failed: 0, pending: 0 },
    });
    const agree = await t.call(
      "POST",
      "/group_publish",
      { groupID: g.groupID, payload: "x", qos: 2, needAck: 1 },
      token,
    );
    expect(agree.status).toBe(201);
    const clash = await t.call(
      "POST",
      "/group_publish",
      { groupID: g.groupID, payload: "x", qos: 2, needAck: 0 },
      token,
    );
    expect(clash.status).toBe(400);
    expect(clash.body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { qos: expect.stringContaining("needAck") },
    });
    const bad = await t.call("POST", "/group_publish", { groupID: g.groupID, payload: "x", qos: 3 }, token);
    expect(bad.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { qos: expect.any(String) } });
  });

  it("finishes a command to an empty group at once as a success", async () => {
    const g = await newGroup("empty", 0);
    const r = await t.call("POST", "/group_publish", { groupID: g.groupID, payload: "x", needAck: 1 }, token);
    expect((await taskOf(r.body.statusUrl)).body).toMatchObject({
      status: 3,
      progress: 100,
      message: "the group has no devices",
      result: { total: 0, success: 0, failed: 0, pending: 0 },
    });
  });

  it("refuses a bad needAck, a missing payload and a groupIntID of another group with FORM_INVALID", async () => {
    const a = await newGroup("a", 0);
    const b = await newGroup("b", 0);
    const bad = await t.call("POST", "/group_publish", { groupID: a.groupID, payload: "x", needAck: 2 }, token);
    expect(bad.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { needAck: expect.any(String) } });
    const noPayload = await t.call("POST", "/group_publish", { groupID: a.groupID }, token);
    expect(noPayload.body).toMatchObject({ errorCode: "FORM_INVALID", errors: { payload: expect.any(String) } });
    const mixed = await t.call("POST", "/group_publish", { groupID: a.groupID, groupIntID: b.id, payload: "x" }, token);
    expect(mixed.body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { groupIntID: "is not the group named by groupID" },
    });
  });

  it("answers 404 for an unknown group, another tenant's group and another tenant's task, and creates nothing for them", async () => {
    const g = await newGroup("mine", 1);
    expect((await t.call("POST", "/group_publish", { groupID: "nope", payload: "x" }, token)).status).toBe(404);
    const foreign = await t.call("POST", "/group_publish", { groupID: g.groupID, payload: "x" }, eveToken);
    expect(foreign.body).toMatchObject({ errorCode: "DATA_NOT_FOUND" });
    expect(
      (await t.call("POST", "/group_publish", { groupID: g.groupID, groupIntID: g.id, payload: "x" }, eveToken)).status,
    ).toBe(404);
    expect(await memberLogs(g.ids[0]!)).toEqual([]);
    const mine = await t.call("POST", "/group_publish", { groupID: g.groupID, payload: "x" }, token);
    const theirs = await taskOf(mine.body.statusUrl, eveToken);
    expect(theirs.status).toBe(404);
    expect(theirs.body.errorCode).toBe("DATA_NOT_FOUND");
    expect((await taskOf("/task_status/00000000-0000-0000-0000-000000000000")).status).toBe(404);
  });

  it("lets a viewer read a task but not publish to a group", async () => {
    const g = await newGroup("viewed", 0);
    expect((await t.call("POST", "/group_publish", { groupID: g.groupID, payload: "x" }, viewerToken)).status).toBe(
      403,
    );
    const r = await t.call("POST", "/group_publish", { groupID: g.groupID, payload: "x" }, token);
    expect((await taskOf(r.body.statusUrl, viewerToken)).status).toBe(200);
  });

  it("checks a data point command against the product's command stream and sends it to the stream's topic", async () => {
    const motors = (
      await t.call("POST", "/products", { productName: "Motors", cloudProtocol: 1, description: "p" }, token)
    ).body as { id: number; productID: string };
    const point = async (dataPointID: string, extra: Record<string, unknown>) => {
      const r = await t.call(
        "POST",
        "/data_points",
        { productIntID: motors.id, dataPointName: dataPointID, dataPointID, dataTransType: 2, ...extra },
        token,
      );
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body as { id: number };
    };
    const speed = await point("speed", { pointDataType: 1, lowerLimit: 0, upperLimit: 100 });
    const mode = await point("mode", { pointDataType: 3, enum: ["auto", "manual"] });
    const stream = await t.call(
      "POST",
      "/data_streams",
      {
        productID: motors.productID,
        streamName: "Motor",
        streamType: 2,
        streamDataType: 1,
        topic: "cmd/motor",
        dataPoints: [speed.id, mode.id],
      },
      token,
    );
    expect(stream.status, JSON.stringify(stream.body)).toBe(201);
    const d = await createDevice(t.store.db, admin, {
      productId: motors.productID,
      deviceName: "motor-1",
      upLinkSystem: 1,
      authType: 1,
    });

    const bad = await t.call("POST", "/device_publish", { deviceID: d.deviceId, payload: '{"speed": 250}' }, token);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      errorCode: "FORM_INVALID",
      errors: { "payload.speed": "must be at most 100 (upperLimit)" },
    });
    const payload = '{"speed": 50, "mode": "auto"}';
    const ok = await t.call("POST", "/device_publish", { deviceID: d.deviceId, payload }, token);
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(await memberLogs(d.id)).toHaveLength(1);
    const logs = await t.call("GET", `/devices/${d.id}/control_logs`, undefined, token);
    expect(logs.body.items[0]).toMatchObject({ id: ok.body.controlLogIntID, topic: "cmd/motor", payload });

    const group = (
      await t.call("POST", "/groups", { productID: motors.productID, groupName: "Motors", description: "d" }, token)
    ).body as { id: number; groupID: string };
    expect((await t.call("POST", `/groups/${group.id}/devices`, { ids: [d.id] }, token)).status).toBeLessThan(300);
    const badGroup = await t.call("POST", "/group_publish", { groupID: group.groupID, payload: '{"mode": 1}' }, token);
    expect(badGroup.status).toBe(400);
    expect(badGroup.body.errors).toEqual({ "payload.mode": "must be a string" });
    const okGroup = await t.call(
      "POST",
      "/group_publish",
      { groupID: group.groupID, payload: '{"mode": "manual"}' },
      token,
    );
    expect(okGroup.status).toBe(201);
    expect((await memberLogs(d.id)).length).toBe(2);
  });

  it("documents group_publish and task_status in the OpenAPI document", async () => {
    const doc = (await (await t.app.request("/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths["/api/v1/group_publish"] ?? {})).toEqual(["post"]);
    expect(Object.keys(doc.paths["/api/v1/task_status/{taskID}"] ?? {})).toEqual(["get"]);
  });
});
