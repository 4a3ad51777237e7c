/**
 * LoRaWAN multicast group commands end to end: the central node and the LoRaWAN adapter as processes on real ports,
 * three simulated packet forwarders and ten simulated class C devices on real UDP sockets, the group and its
 * multicast session made through the REST API. A group command goes out as one frame per gateway that heard a
 * member, and all ten devices decrypt it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedForwarder, SimulatedLoraDevice } from "@iot/adapter-lorawan";
import { startTestFleet, type TestFleet } from "./helpers.js";

const GW = ["AA555A0000000201", "AA555A0000000202", "AA555A0000000203"];
const NWK = "44024241ED4CE9A68C6A8BC055233FD3";
const APP = "EC925802AE430CA77FD3DD73CB2CC588";
/** The group's McKey (TS005): the registry and each device derive the session keys from it, each its own way. */
const MC = { mcAddr: "01AB23CD", mcKey: "000102030405060708090A0B0C0D0E0F" };

let t: TestFleet;
const forwarders: SimulatedForwarder[] = [];

type Api = TestFleet["api"];
async function ok(api: Api, method: string, path: string, body?: unknown) {
  const r = await api(method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

beforeAll(async () => {
  t = await startTestFleet(
    { IOT_LORA_UDP_PORT: "0", IOT_LORA_DEV_STATUS_EVERY: "0" },
    { adapters: ["lorawan-adapter"] },
  );
}, 90_000);

afterAll(async () => {
  await Promise.all(forwarders.map((f) => f.close()));
  await t?.close();
});

describe("LoRaWAN multicast", () => {
  it("sends a group command to ten class C devices as one frame per gateway, which every device decrypts", async () => {
    const product = await ok(t.api, "POST", "/products", { productName: "Streetlights", cloudProtocol: 4 });
    const gatewayIds: number[] = [];
    for (const eui of GW) {
      const g = await ok(t.api, "POST", "/gateways", {
        productID: product.productID,
        gatewayName: `gw ${eui.slice(-2)}`,
        gatewayProtocol: 4,
        authType: 1,
        deviceID: eui,
      });
      gatewayIds.push(g.id);
    }
    const adapter = t.fleet.adapters.find((a) => a.name === "lorawan-adapter")!;
    const port = Number(new URL(adapter.urls.lorawan!).port);
    for (const eui of GW) {
      const f = new SimulatedForwarder({ gatewayEui: eui, port, keepaliveMs: 0 });
      await f.start();
      forwarders.push(f);
    }
    const group = await ok(t.api, "POST", "/groups", { productID: product.productID, groupName: "Main street" });
    const sims: SimulatedLoraDevice[] = [];
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const devAddr = `26011D${i.toString(16).padStart(2, "0").toUpperCase()}`;
      const d = await ok(t.api, "POST", "/devices", {
        productID: product.productID,
        deviceName: `light ${i}`,
        deviceID: devAddr,
        upLinkSystem: 2,
        gateway: gatewayIds[0],
        lora: {
          type: "abp",
          region: "EU868",
          nwkSKey: NWK,
          appSKey: APP,
          fcntUp: 0,
          fcntDown: 0,
          fcntCheck: 1,
          classC: true,
        },
      });
      ids.push(d.id);
      const sim = new SimulatedLoraDevice({ abp: { devAddr, nwkSKey: NWK, appSKey: APP } });
      sim.joinMulticast(MC);
      sims.push(sim);
    }
    await ok(t.api, "POST", `/groups/${group.id}/devices`, { ids });
    await ok(t.api, "PUT", `/groups/${group.id}/lora-multicast`, MC);
    // Devices 0-3 are heard by the first gateway, 4-7 by the second, 8-9 by the third.
    for (const [i, sim] of sims.entries())
      await forwarders[i < 4 ? 0 : i < 8 ? 1 : 2]!.push({ data: sim.uplink({ payload: "up" }) });
    const online = async () =>
      ((await t.api("GET", `/groups/${group.id}/devices?_limit=20`)).body.items as { id: number }[]).length;
    expect(await online()).toBe(10);
    // Every device's uplink is stored: the adapter holds all ten sessions and knows their gateways.
    const stored = async () => {
      let n = 0;
      for (const id of ids)
        n += ((await t.api("GET", `/devices/${id}/events?_limit=5`)).body.items as unknown[]).length;
      return n;
    };
    await expect.poll(stored, { timeout: 15_000 }).toBe(10);

    const pub = await ok(t.api, "POST", "/group_publish", { groupID: group.groupID, payload: "hex:64", needAck: 0 });
    const [a, b, c] = await Promise.all(forwarders.map((f) => f.nextDownlink(5_000)));
    expect(a!.txpk.imme).toBe(true);
    expect(a!).toMatchObject({ freq: 869.525, datr: "SF12BW125" });
    expect(b!.data).toEqual(a!.data);
    expect(c!.data).toEqual(a!.data);
    for (const sim of sims) {
      const got = sim.handleMulticastDownlink(a!.data);
      if (!got.ok) throw new Error(got.reason);
      expect(got.value).toEqual({ fcnt: 0, fPort: 1, payload: Buffer.from([0x64]) });
      // Not a frame of the device's own session.
      expect(sim.handleDownlink(a!.data).ok).toBe(false);
    }
    const status = async () => (await t.api("GET", pub.statusUrl as string)).body;
    await expect.poll(async () => (await status()).status, { timeout: 10_000 }).toBe(3);
    const done = await status();
    expect(done.message).toBe(
      "multicast (McAddr 01AB23CD, FCnt 0) sent by 3 gateways that last heard 10 of 10 devices",
    );
    expect(done.result).toEqual({
      total: 10,
      success: 10,
      failed: 0,
      pending: 0,
      multicast: { mcAddr: "01AB23CD", fCnt: 0, gateways: 3, covered: 10 },
    });
    expect((await ok(t.api, "GET", `/groups/${group.id}/lora-multicast`)).mcFCntDown).toBe(1);
    // Only the two multicast frames went out: no unicast downlink to any member.
    await expect(forwarders[0]!.nextDownlink(500)).rejects.toThrow();
  });
});
