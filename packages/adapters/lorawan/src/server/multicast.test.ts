import { describe, expect, test } from "vitest";
import { SimulatedLoraDevice } from "../sim/simulated-lora-device.js";
import { APP, dataUp, GW1, GW2, GW3, gatewayDevice, Harness, loraDevice, NWK } from "./test-kit.js";

const MC = {
  mcAddr: "01AB23CD",
  mcNwkSKey: "00112233445566778899AABBCCDDEEFF",
  mcAppSKey: "FFEEDDCCBBAA99887766554433221100",
};
const addr = (i: number) => `26011c${i.toString(16).padStart(2, "0")}`;
const ids = Array.from({ length: 10 }, (_, i) => 100 + i);
const member = (id: number, classC = true) =>
  loraDevice(id, {
    classC,
    session: { devAddr: addr(id - 100).toUpperCase(), nwkSKey: NWK, appSKey: APP, fcntUp: 0, fcntDown: 0 },
  });

/** Ten members heard: 0-3 through GW1, 4-7 through GW2, 8-9 through GW3 (which never pulled: no downlink path). */
async function heardGroup(classC = true) {
  const h = new Harness([
    gatewayDevice(1, GW1),
    gatewayDevice(2, GW2),
    gatewayDevice(3, GW3),
    ...ids.map((id) => member(id, classC)),
  ]);
  h.pull(GW1);
  h.pull(GW2);
  ids.forEach((id, i) => h.push(i < 4 ? GW1 : i < 8 ? GW2 : GW3, dataUp(addr(id - 100), 0)));
  await h.until(() => h.registry.uplinks.length === ids.length);
  return h;
}

const multicast = (fcnt: number, extra = {}) => ({ ...MC, fcnt, deviceIntIds: ids, ...extra });

describe("multicast group commands", () => {
  test("go out once per gateway with a downlink path that heard a member, and every member decrypts the frame", async () => {
    const h = await heardGroup();
    const settled = h.registry.pushDownlink({
      id: 900,
      deviceIntId: ids[0]!,
      topic: "dn/7",
      payload: Buffer.from("dim 40%"),
      loraMulticast: multicast(5),
    });
    await h.until(() => h.pullResps().length === 2);
    for (const r of h.pullResps()) h.txAck(r.port === 41_002 ? GW1 : GW2, r.token);
    expect(await settled).toEqual({
      status: "SENT",
      message: "sent as multicast to 2 gateways that last heard 8 of the 10 members",
      multicast: { gateways: 2, covered: 8 },
    });
    const [a, b] = h.pullResps();
    expect(a!.txpk).toMatchObject({ imme: true, freq: 869.525, datr: "SF12BW125" });
    expect(a!.txpk.data).toEqual(b!.txpk.data);
    const sims = ids.map(
      (id) => new SimulatedLoraDevice({ abp: { devAddr: addr(id - 100), nwkSKey: NWK, appSKey: APP } }),
    );
    for (const sim of sims) {
      sim.joinMulticast({ ...MC, fcntDown: 5 });
      const got = sim.handleMulticastDownlink(a!.txpk.data);
      expect(got).toEqual({ ok: true, value: { fcnt: 5, fPort: 7, payload: Buffer.from("dim 40%") } });
    }
    // The same frame again is a replay to every member.
    expect(sims[0]!.handleMulticastDownlink(a!.txpk.data).ok).toBe(false);
    h.server.close();
  });

  test("take the session's data rate and frequency instead of the RX2 defaults", async () => {
    const h = await heardGroup();
    const settled = h.registry.pushDownlink({
      id: 901,
      deviceIntId: ids[0]!,
      topic: "dn/7",
      payload: Buffer.from("x"),
      loraMulticast: multicast(0, { dataRate: 3, frequencyHz: 869_100_000 }),
    });
    await h.until(() => h.pullResps().length === 2);
    for (const r of h.pullResps()) h.txAck(r.port === 41_002 ? GW1 : GW2, r.token);
    await settled;
    expect(h.pullResps()[0]!.txpk).toMatchObject({ freq: 869.1, datr: "SF9BW125" });
    h.server.close();
  });

  test("fail for a group of class A devices, a confirmed topic, and members this adapter never heard", async () => {
    const a = await heardGroup(false);
    const push = (h: Harness, topic: string, deviceIntIds = ids) =>
      h.registry.pushDownlink({
        id: 902,
        deviceIntId: ids[0]!,
        topic,
        payload: Buffer.from("x"),
        loraMulticast: multicast(0, { deviceIntIds }),
      });
    expect(await push(a, "dn/7")).toEqual({ status: "FAILED", message: "no member is a class C device" });
    a.server.close();
    const c = await heardGroup();
    expect(await push(c, "dn/7/confirmed")).toMatchObject({
      status: "FAILED",
      message: expect.stringContaining("confirmed"),
    });
    expect(await push(c, "dn/7", [555])).toEqual({ status: "FAILED", message: "no member is heard by this adapter" });
    expect(c.pullResps()).toEqual([]);
    c.server.close();
  });
});
