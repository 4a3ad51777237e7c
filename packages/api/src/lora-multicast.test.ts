import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testApp } from "./test-app.js";

const session = {
  mcAddr: "01ab23cd",
  mcNwkSKey: "00112233445566778899AABBCCDDEEFF",
  mcAppSKey: "FFEEDDCCBBAA99887766554433221100",
};

describe("a group's LoRaWAN multicast session", () => {
  let t: Awaited<ReturnType<typeof testApp>>;
  let token: string;
  let viewer: string;
  let eveToken: string;
  let loraGroup: number;
  let mqttGroup: number;

  const newGroup = async (cloudProtocol: number, name: string, as = token) => {
    const product = (await t.call("POST", "/products", { productName: name, cloudProtocol, description: "p" }, as)).body
      .productID as string;
    const r = await t.call("POST", "/groups", { productID: product, groupName: name, description: "d" }, as);
    expect(r.status).toBe(201);
    return r.body.id as number;
  };

  beforeAll(async () => {
    t = await testApp("1");
    token = await t.login();
    expect(
      (await t.call("POST", "/users", { username: "view", password: "view-pass-1", role: "viewer" }, token)).status,
    ).toBe(201);
    viewer = await t.login("view", "view-pass-1");
    await t.addTenant("tenant2");
    ({ token: eveToken } = await t.addUser("tenant2", "eve", "admin"));
    loraGroup = await newGroup(4, "Streetlights");
    mqttGroup = await newGroup(1, "Meters");
  });
  afterAll(() => t.close());

  it("is provisioned with PUT, answered with its McAddr upper case, FCnt 0 and the region's RX2 defaults", async () => {
    const r = await t.call("PUT", `/groups/${loraGroup}/lora-multicast`, session, token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      groupIntID: loraGroup,
      mcAddr: "01AB23CD",
      mcNwkSKey: session.mcNwkSKey,
      mcAppSKey: session.mcAppSKey,
      mcFCntDown: 0,
      dataRate: null,
      frequency: null,
    });
    const read = await t.call("GET", `/groups/${loraGroup}/lora-multicast`, undefined, token);
    expect(read.body).toEqual(r.body);
  });

  it("keeps its McFCntDown when replaced without one, and takes a data rate and frequency", async () => {
    await t.call("PUT", `/groups/${loraGroup}/lora-multicast`, { ...session, mcFCntDown: 41 }, token);
    const r = await t.call(
      "PUT",
      `/groups/${loraGroup}/lora-multicast`,
      { ...session, dataRate: 3, frequency: 869_525_000 },
      token,
    );
    expect(r.body).toMatchObject({ mcFCntDown: 41, dataRate: 3, frequency: 869_525_000 });
  });

  it("derives McNwkSKey and McAppSKey from an McKey (TS005), and refuses an McKey beside the keys", async () => {
    const mcKey = "000102030405060708090a0b0c0d0e0f";
    const r = await t.call("PUT", `/groups/${loraGroup}/lora-multicast`, { mcAddr: "01AB23CD", mcKey }, token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      mcAppSKey: "BB1790A39F1262BF152D58288954B5B4",
      mcNwkSKey: "4C73A2261B3A677B56BCF4E1D5DB55FD",
    });
    expect(r.body).not.toHaveProperty("mcKey");
    const both = await t.call("PUT", `/groups/${loraGroup}/lora-multicast`, { ...session, mcKey }, token);
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual({ mcKey: expect.any(String) });
    const none = await t.call("PUT", `/groups/${loraGroup}/lora-multicast`, { mcAddr: "01AB23CD" }, token);
    expect(none.body.errors).toEqual({ mcNwkSKey: expect.any(String), mcAppSKey: expect.any(String) });
    await t.call("PUT", `/groups/${loraGroup}/lora-multicast`, session, token);
  });

  it("is read by viewers without its keys", async () => {
    const r = await t.call("GET", `/groups/${loraGroup}/lora-multicast`, undefined, viewer);
    expect(r.status).toBe(200);
    expect(r.body.mcAddr).toBe("01AB23CD");
    expect(r.body).not.toHaveProperty("mcNwkSKey");
    expect(r.body).not.toHaveProperty("mcAppSKey");
  });

  it("refuses bad fields with 400 naming each", async () => {
    const r = await t.call(
      "PUT",
      `/groups/${loraGroup}/lora-multicast`,
      { mcAddr: "123", mcNwkSKey: "zz", mcAppSKey: session.mcAppSKey, dataRate: 16, frequency: 5 },
      token,
    );
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors).sort()).toEqual(["dataRate", "frequency", "mcAddr", "mcNwkSKey"]);
  });

  it("refuses a group whose product is not LoRa with 400 naming productID", async () => {
    const r = await t.call("PUT", `/groups/${mqttGroup}/lora-multicast`, session, token);
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual({ productID: expect.any(String) });
  });

  it("refuses an McAddr another group holds with 400 naming mcAddr", async () => {
    const other = await newGroup(4, "Other lights");
    const r = await t.call("PUT", `/groups/${other}/lora-multicast`, session, token);
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual({ mcAddr: expect.any(String) });
  });

  it("is not found for another tenant, and ends with DELETE", async () => {
    expect((await t.call("GET", `/groups/${loraGroup}/lora-multicast`, undefined, eveToken)).status).toBe(404);
    expect((await t.call("PUT", `/groups/${loraGroup}/lora-multicast`, session, eveToken)).status).toBe(404);
    expect((await t.call("DELETE", `/groups/${loraGroup}/lora-multicast`, undefined, token)).status).toBe(204);
    expect((await t.call("GET", `/groups/${loraGroup}/lora-multicast`, undefined, token)).status).toBe(404);
  });
});
