import { describe, expect, test } from "vitest";
import { gpsMsFromUnixMs } from "../codec/class-b.js";
import { deviceDownlink11, deviceUplink11 } from "../sim/device-frames11.js";
import { SimulatedLoraDevice } from "../sim/simulated-lora-device.js";
import { SimulatedLoraDevice11 } from "../sim/simulated-lora-device11.js";
import { GW1, gatewayDevice, Harness, loraDevice } from "./test-kit.js";

const DEV_EUI = "0004a30b001c0531";
const JOIN_EUI = "70b3d57ed0000001";
const APP_KEY = "2b7e151628aed2a6abf7158809cf4f3c";
const NWK_KEY = "000102030405060708090a0b0c0d0e0f";
const v11 = (usedDevNonces: number[] = [], nextJoinNonce = 0) =>
  loraDevice(30, {
    activation: "otaa",
    devEui: DEV_EUI.toUpperCase(),
    appEui: JOIN_EUI.toUpperCase(),
    appKey: APP_KEY,
    nwkKey: NWK_KEY,
    macVersion: "1.1",
    canJoin: true,
    usedDevNonces,
    nextJoinNonce,
  });
const device = (devNonce = 0) =>
  new SimulatedLoraDevice11({ devEui: DEV_EUI, joinEui: JOIN_EUI, appKey: APP_KEY, nwkKey: NWK_KEY, devNonce });

/** Pushes the device's next uplink as GW1 heard it (on the channel and data rate its MIC covers). */
function send(h: Harness, sim: SimulatedLoraDevice11, ...args: Parameters<SimulatedLoraDevice11["uplink"]>) {
  const phy = sim.uplink(...args);
  h.push(GW1, phy, sim.lastRadio);
}

async function joined(h: Harness, sim: SimulatedLoraDevice11) {
  h.pull(GW1);
  h.push(GW1, sim.joinRequest());
  await h.until(() => h.pullResps().length === 1);
  const accepted = sim.handleJoinAccept(h.pullResps()[0]!.txpk.data);
  if (!accepted.ok) throw new Error(accepted.reason);
  return accepted.value;
}

describe("LoRaWAN 1.1 devices", () => {
  test("join with the 1.1 rules, and the session the registry records carries the 1.1 keys and JoinNonce", async () => {
    const h = new Harness([gatewayDevice(1, GW1), v11([4], 7)]);
    const sim = device(5);
    const session = await joined(h, sim);
    expect(session.joinNonce).toBe(7);
    expect(h.registry.loraActivations).toEqual([{ deviceIntId: 30, devNonce: 5, devAddr: session.devAddr }]);
    const state = h.server.devices.get(30)!;
    expect(state.nextJoinNonce).toBe(8);
    expect(state.session!.v11!.keys.sNwkSIntKey).toEqual(session.keys.sNwkSIntKey);
    expect(state.session!.appSKey).toEqual(session.keys.appSKey);
    h.server.close();
  });

  test.each([
    ["a DevNonce not above the last one", [9], 9, NWK_KEY],
    ["a MIC under the AppKey instead of the NwkKey", [], 0, APP_KEY],
  ])("refuse a JoinRequest with %s", async (_what, used, devNonce, nwkKey) => {
    const h = new Harness([gatewayDevice(1, GW1), v11(used)]);
    const sim = new SimulatedLoraDevice11({ devEui: DEV_EUI, joinEui: JOIN_EUI, appKey: APP_KEY, nwkKey, devNonce });
    h.pull(GW1);
    h.push(GW1, sim.joinRequest());
    await h.until(() => h.server.stats.joinsRefused === 1);
    expect(h.registry.loraActivations).toEqual([]);
    h.server.close();
  });

  test("store uplinks checked with the 1.1 MIC, answer RekeyInd with RekeyConf, and refuse a frame on another channel", async () => {
    const h = new Harness([gatewayDevice(1, GW1), v11()]);
    const sim = device();
    await joined(h, sim);
    send(h, sim, { fPort: 3, payload: "t=21" });
    await h.until(() => h.pullResps().length === 2);
    expect(Buffer.from(h.registry.uplinks[0]!.payload).toString()).toBe("t=21");
    const answer = sim.handleDownlink(h.pullResps()[1]!.txpk.data);
    if (!answer.ok) throw new Error(answer.reason);
    expect(answer.value).toMatchObject({
      counter: "nFCntDown",
      fcnt: 0,
      macCommands: [{ type: "RekeyConf", minor: 1 }],
    });
    expect(sim.rekeyPending).toBe(false);
    const phy = sim.uplink({ fPort: 3, payload: "moved" });
    h.push(GW1, phy, { ...sim.lastRadio, freq: 868.5 });
    await h.until(() => h.server.stats.unauthentic === 1);
    expect(h.registry.uplinks).toHaveLength(1);
    h.server.close();
  });

  test("deliver a confirmed command on AFCntDown, DELIVERED once the device's next uplink acknowledges it", async () => {
    const h = new Harness([gatewayDevice(1, GW1), v11()]);
    const sim = device();
    await joined(h, sim);
    sim.rekeyPending = false;
    send(h, sim, { fPort: 3, payload: "t=20" });
    await h.until(() => h.registry.uplinks.length === 1);
    const outcome = h.registry.pushDownlink({ deviceIntId: 30, topic: "dn/5/confirmed", payload: Buffer.from("on") });
    // FCnt 1: the ACK's MIC covers it (ConfFCnt).
    send(h, sim, { fPort: 3, payload: "t=21", confirmed: true });
    await h.until(() => h.pullResps().length === 2);
    h.txAck(GW1, h.pullResps()[1]!.token);
    const got = sim.handleDownlink(h.pullResps()[1]!.txpk.data);
    if (!got.ok) throw new Error(got.reason);
    expect(got.value).toMatchObject({ counter: "aFCntDown", fcnt: 0, fPort: 5, confirmed: true, ack: true });
    expect(got.value.payload.toString()).toBe("on");
    send(h, sim, { fPort: 3, payload: "t=22" });
    expect(await outcome).toEqual({ status: "DELIVERED" });
    expect(h.registry.uplinks).toHaveLength(3);
    h.server.close();
  });

  test("answer DeviceTimeReq with the GPS time the gateway received the uplink at (tmms), else its UTC time", async () => {
    const h = new Harness([gatewayDevice(1, GW1), v11()]);
    const sim = device();
    await joined(h, sim);
    sim.rekeyPending = false;
    const tmms = 1_400_000_123_500;
    h.push(GW1, sim.uplink({ macCommands: [{ type: "DeviceTimeReq" }] }), { ...sim.lastRadio, tmms });
    await h.until(() => h.pullResps().length === 2);
    expect(sim.handleDownlink(h.pullResps()[1]!.txpk.data).ok).toBe(true);
    expect(sim.deviceTime).toEqual({ gpsSeconds: 1_400_000_123, fraction: 128 });
    const time = "2026-12-07T23:00:00.250Z";
    h.push(GW1, sim.uplink({ macCommands: [{ type: "DeviceTimeReq" }] }), { ...sim.lastRadio, time });
    await h.until(() => h.pullResps().length === 3);
    expect(sim.handleDownlink(h.pullResps()[2]!.txpk.data).ok).toBe(true);
    const gps = gpsMsFromUnixMs(Date.parse(time));
    expect(sim.deviceTime).toEqual({ gpsSeconds: Math.floor(gps / 1000), fraction: 64 });
    h.server.close();
  });
});

describe("LoRaWAN 1.1 Rejoin-Requests", () => {
  test.each([0, 1, 2] as const)(
    "a type %i Rejoin-Request gets new session keys through a JoinAccept under the JSEncKey",
    async (type) => {
      const h = new Harness([gatewayDevice(1, GW1), v11()]);
      const sim = device();
      const first = await joined(h, sim);
      h.push(GW1, sim.rejoinRequest(type));
      await h.until(() => h.pullResps().length === 2);
      const again = sim.handleJoinAccept(h.pullResps()[1]!.txpk.data);
      if (!again.ok) throw new Error(again.reason);
      expect(again.value.joinNonce).toBe(first.joinNonce + 1);
      expect(again.value.keys.sNwkSIntKey).not.toEqual(first.keys.sNwkSIntKey);
      if (type === 2) expect(again.value.devAddr).toBe(first.devAddr);
      expect(h.registry.loraActivations).toHaveLength(2);
      send(h, sim, { fPort: 4, payload: "rejoined" });
      await h.until(() => h.registry.uplinks.length === 1);
      expect(Buffer.from(h.registry.uplinks[0]!.payload).toString()).toBe("rejoined");
      h.server.close();
    },
  );

  test("a replayed type 1 Rejoin-Request is refused by its RJcount1, and a device without a session sends no type 0", async () => {
    // Frames are not remembered past their dedup window here, so the replay is judged by its RJcount.
    const h = new Harness([gatewayDevice(1, GW1), v11()], { dedupWindowMs: 20, dedupRememberMs: 0 });
    const sim = device();
    await joined(h, sim);
    const rejoin = sim.rejoinRequest(1);
    h.push(GW1, rejoin);
    await h.until(() => h.pullResps().length === 2);
    expect(sim.handleJoinAccept(h.pullResps()[1]!.txpk.data).ok).toBe(true);
    h.push(GW1, rejoin);
    await h.until(() => h.server.stats.joinsRefused === 1);
    const fresh = device();
    expect(() => fresh.rejoinRequest(0)).toThrow(/session/);
    expect(h.registry.loraActivations).toHaveLength(2);
    h.server.close();
  });
});

describe("MAC commands by command (topic mac)", () => {
  test("ForceRejoinReq and ADRParamSetupReq reach a 1.1 device in an FPort 0 downlink; it rejoins as asked", async () => {
    const h = new Harness([gatewayDevice(1, GW1), v11()]);
    const sim = device();
    await joined(h, sim);
    sim.rekeyPending = false;
    const commands = [
      { type: "ForceRejoinReq", period: 1, maxRetries: 2, rejoinType: 2, dataRate: 5 },
      { type: "ADRParamSetupReq", limitExp: 6, delayExp: 5 },
    ];
    const outcome = h.registry.pushDownlink({
      deviceIntId: 30,
      topic: "mac",
      payload: Buffer.from(JSON.stringify(commands)),
    });
    send(h, sim, { fPort: 1, payload: "x" });
    await h.until(() => h.pullResps().length === 2);
    h.txAck(GW1, h.pullResps()[1]!.token);
    expect(await outcome).toEqual({ status: "SENT" });
    const got = sim.handleDownlink(h.pullResps()[1]!.txpk.data);
    expect(got).toMatchObject({ ok: true, value: { fPort: 0, counter: "nFCntDown", macCommands: commands } });
    expect(sim.forcedRejoin).toEqual(commands[0]);
    h.push(GW1, sim.rejoinRequest(2));
    await h.until(() => h.pullResps().length === 3);
    expect(sim.handleJoinAccept(h.pullResps()[2]!.txpk.data).ok).toBe(true);
    h.server.close();
  });

  test.each([
    ["not JSON", "ForceRejoinReq", /JSON/],
    [
      "a 1.1 command to a 1.0.x device",
      JSON.stringify({ type: "RejoinParamSetupReq", maxTimeN: 1, maxCountN: 2 }),
      /1\.1/,
    ],
    ["a value out of range", JSON.stringify({ type: "DutyCycleReq", maxDutyCycle: 16 }), /maxDutyCycle/],
  ])("a mac command with %s fails with the reason", async (_what, payload, reason) => {
    const old = loraDevice(31, {
      activation: "abp",
      session: { devAddr: "26000001", nwkSKey: NWK_KEY, appSKey: APP_KEY, fcntUp: 0, fcntDown: 0 },
    });
    const h = new Harness([gatewayDevice(1, GW1), old]);
    h.pull(GW1);
    const abp = new SimulatedLoraDevice({ abp: { devAddr: "26000001", nwkSKey: NWK_KEY, appSKey: APP_KEY } });
    h.push(GW1, abp.uplink({ payload: "hi" }));
    await h.until(() => h.registry.uplinks.length === 1);
    const outcome = await h.registry.pushDownlink({ deviceIntId: 31, topic: "mac", payload: Buffer.from(payload) });
    expect(outcome).toMatchObject({ status: "FAILED", message: expect.stringMatching(reason) });
    h.server.close();
  });
});

describe("a 1.1 session the registry hands back (a restarted server)", () => {
  test("checks its uplinks with the stored 1.1 keys and resumes its NFCntDown", async () => {
    const hex = (s: string) => Buffer.from(s, "hex");
    const keys = {
      fNwkSIntKey: hex("e163635133105cc690cb2d57ba9c31b9"),
      sNwkSIntKey: hex("05ec7c795b2f0b5bcdfa710db52b9d8f"),
      nwkSEncKey: hex("44024241ed4ce9a68c6a8bc055233fd3"),
      appSKey: hex("ec925802ae430ca77fd3dd73cb2cc588"),
    };
    const session = {
      devAddr: "26011BDA",
      nwkSKey: keys.fNwkSIntKey.toString("hex"),
      appSKey: keys.appSKey.toString("hex"),
      fcntUp: 40,
      fcntDown: 9,
      lorawan11: {
        fNwkSIntKey: keys.fNwkSIntKey.toString("hex"),
        sNwkSIntKey: keys.sNwkSIntKey.toString("hex"),
        nwkSEncKey: keys.nwkSEncKey.toString("hex"),
        nFCntDown: 5,
        aFCntDown: 9,
        joinNonce: 3,
      },
    };
    const h = new Harness([gatewayDevice(1, GW1), loraDevice(32, { ...v11().lora, session })]);
    h.pull(GW1);
    const up = {
      devAddr: "26011bda",
      fcnt: 40,
      confirmed: false,
      ack: false,
      confFCnt: 0,
      adr: false,
      adrAckReq: false,
      fOpts: hex("0d"),
      fPort: 2,
      payload: Buffer.from("back"),
      txDr: 5,
      txCh: 0,
    };
    h.push(GW1, deviceUplink11(up, keys), { freq: 868.1, datr: "SF7BW125" });
    await h.until(() => h.pullResps().length === 1);
    expect(Buffer.from(h.registry.uplinks[0]!.payload).toString()).toBe("back");
    const answer = deviceDownlink11(h.pullResps()[0]!.txpk.data, "26011bda", keys, { nFCntDown: 5, aFCntDown: 9 }, 0);
    expect(answer).toMatchObject({ ok: true, value: { counter: "nFCntDown", fcnt: 5 } });
    h.server.close();
  });
});
