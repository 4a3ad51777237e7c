import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApp, type TestApp } from "./test-app.js";

let t: TestApp;
let token: string;
let deviceID: string;
let deviceIntID: number;

beforeAll(async () => {
  ({ t, token } = await adminApp());
  const productID = (await t.call("POST", "/products", { productName: "V5", cloudProtocol: 1 }, token)).body.productID;
  const d = (await t.call("POST", "/devices", { productID, deviceName: "v5", upLinkSystem: 1, authType: 1 }, token))
    .body;
  deviceID = d.deviceID;
  deviceIntID = d.id;
});
afterAll(() => t.close());

const storedLog = (id: number) =>
  t.store.db
    .selectFrom("controlLogs")
    .select(["properties", "awaitingAnswer"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();

describe("MQTT 5.0 properties on device_publish and group_publish", () => {
  it("takes user properties, content type, payload format indicator, response topic and correlation data", async () => {
    const properties = {
      userProperties: { unit: "C", tags: ["a", "b"] },
      contentType: "application/json",
      payloadFormatIndicator: 1,
      responseTopic: "replies/1",
      correlationData: "req-1",
    };
    const r = await t.call("POST", "/device_publish", { deviceID, payload: '{"get":1}', ...properties }, token);
    expect(r.status).toBe(201);
    const log = await storedLog(r.body.controlLogIntID);
    expect(JSON.parse(log.properties!)).toEqual(properties);
    expect(log.awaitingAnswer).not.toBeNull();
  });

  it("keeps a command without them as before", async () => {
    const r = await t.call("POST", "/device_publish", { deviceID, deviceIntID, payload: "x" }, token);
    expect(r.status).toBe(201);
    expect(await storedLog(r.body.controlLogIntID)).toEqual({ properties: null, awaitingAnswer: null });
  });

  const bad: Array<[string, Record<string, unknown>]> = [
    ["userProperties.k", { userProperties: { k: 1 } }],
    ["userProperties", { userProperties: ["k", "v"] }],
    ["userProperties.k", { userProperties: { k: [] } }],
    ["userProperties", { userProperties: { "a\u0000": "v" } }],
    ["userProperties", { userProperties: { k: "x".repeat(9000) } }],
    ["contentType", { contentType: "" }],
    ["contentType", { contentType: "x".repeat(257) }],
    ["payloadFormatIndicator", { payloadFormatIndicator: 2 }],
    ["responseTopic", { responseTopic: "replies/#" }],
    ["responseTopic", { responseTopic: "/abs" }],
    ["correlationData", { correlationData: "x".repeat(257) }],
  ];
  it.each(bad)("answers 400 FORM_INVALID naming %s for %j", async (field, properties) => {
    const r = await t.call("POST", "/device_publish", { deviceID, payload: "x", ...properties }, token);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe("FORM_INVALID");
    expect(Object.keys(r.body.errors)).toEqual([field]);
  });

  it("gives every member's command of a group_publish the properties", async () => {
    const group = (
      await t.call("POST", "/groups", { productID: await productOf(), groupName: "g5", description: "d" }, token)
    ).body;
    expect((await t.call("POST", `/groups/${group.id}/devices`, { ids: [deviceIntID] }, token)).status).toBeLessThan(
      300,
    );
    const r = await t.call(
      "POST",
      "/group_publish",
      { groupID: group.groupID, payload: "all", needAck: 1, contentType: "text/plain", userProperties: { g: "1" } },
      token,
    );
    expect(r.status).toBe(201);
    const member = await t.store.db
      .selectFrom("controlLogs")
      .select(["properties"])
      .where("deviceIntId", "=", deviceIntID)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(member.properties!)).toEqual({ contentType: "text/plain", userProperties: { g: "1" } });
  });
});

/** The productID of the test device. */
async function productOf(): Promise<string> {
  return (await t.call("GET", `/devices/${deviceIntID}`, undefined, token)).body.productID as string;
}
