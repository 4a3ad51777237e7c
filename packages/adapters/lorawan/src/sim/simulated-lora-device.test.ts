import { describe, expect, test } from "vitest";
import { buildJoinAccept, deriveSessionKeys, verifyJoinRequest } from "../codec/join.js";
import { REGIONS } from "../codec/region.js";
import { buildDownlink, verifyUplink, type FCntCheck, type UplinkSession } from "../codec/uplink.js";
import { decodeUplinkMacCommands, encodeDownlinkMacCommands } from "../mac/mac-commands.js";
import { SimulatedLoraDevice } from "./simulated-lora-device.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};
const hex = (s: string) => Buffer.from(s, "hex");

// chirpstack/chirpstack lrwn/src/keys.rs test lorawan_1_0: AppKey, NetID 010203, JoinNonce 65536, DevNonce 258.
const APP_KEY = "01020304050607080102030405060708";
const otaa = { devEui: "0004a30b001c0530", appEui: "70b3d57ed0000001", appKey: APP_KEY };
const NWK = "44024241ed4ce9a68c6a8bc055233fd3";
const APP = "ec925802ae430ca77fd3dd73cb2cc588";
const abp = { devAddr: "26011bda", nwkSKey: NWK, appSKey: APP };

/** What the network keeps of the device, to check the device's uplinks with the codec. */
const networkSession = (d: SimulatedLoraDevice, fcntUp: number, fcntCheck: FCntCheck = 1): UplinkSession => ({
  devAddr: d.devAddr!,
  nwkSKey: d.session!.nwkSKey,
  appSKey: d.session!.appSKey,
  fcntUp,
  fcntCheck,
});

describe("OTAA join", () => {
  test("the JoinRequest carries a fresh DevNonce each time and verifies under the AppKey", () => {
    const device = new SimulatedLoraDevice({ otaa });
    const first = value(verifyJoinRequest(device.joinRequest(), hex(APP_KEY)));
    const second = value(verifyJoinRequest(device.joinRequest(), hex(APP_KEY)));
    expect(first).toMatchObject({ devEui: otaa.devEui, appEui: otaa.appEui });
    expect(second.devNonce).not.toBe(first.devNonce);
    expect(device.pendingDevNonce).toBe(second.devNonce);
    expect(value(verifyJoinRequest(device.joinRequest({ devNonce: 7 }), hex(APP_KEY))).devNonce).toBe(7);
  });

  test("a JoinAccept built by the codec gives the chirpstack vector's session keys, RX settings and CFList", () => {
    const device = new SimulatedLoraDevice({ otaa, nextDevNonce: () => 258 });
    device.joinRequest();
    const fields = {
      appNonce: 65536,
      netId: "010203",
      devAddr: "26000001",
      rx1DrOffset: 2,
      rx2DataRate: 3,
      rxDelay: 5,
      cfList: REGIONS.EU868.defaultCfList!,
    };
    const session = value(device.handleJoinAccept(value(buildJoinAccept(fields, hex(APP_KEY)))));
    expect(session.nwkSKey.toString("hex")).toBe("df53c35f3034ccced0ff354c70de04df");
    expect(session.appSKey.toString("hex")).toBe("927b9c911183cffe4cb2ff4b75545f6d");
    expect(session).toMatchObject({ devAddr: "26000001", fcntUp: 0, fcntDown: 0, netId: "010203", appNonce: 65536 });
    expect(session.cfList).toEqual({
      type: 0,
      frequencies: [867_100_000, 867_300_000, 867_500_000, 867_700_000, 867_900_000],
    });
    expect(device.settings).toMatchObject({ rx1DrOffset: 2, rx2DataRate: 3, rxDelay: 5 });
    expect(device.rx1DelayMs).toBe(5000);
    expect(device.joinAcceptDelaysMs).toEqual({ rx1: 5000, rx2: 6000 });
    const network = value(deriveSessionKeys(hex(APP_KEY), { ...fields, devNonce: 258 }));
    expect(session.nwkSKey).toEqual(network.nwkSKey);
    const radios = Array.from({ length: 8 }, () => device.nextRadio().freq);
    expect(radios).toEqual([868.1, 868.3, 868.5, 867.1, 867.3, 867.5, 867.7, 867.9]);
  });

  test("decrypts the brocaar/lorawan JoinAccept vector (AppKey 0011…ff, DevAddr 02031980)", () => {
    const device = new SimulatedLoraDevice({ otaa: { ...otaa, appKey: "00112233445566778899aabbccddeeff" } });
    device.joinRequest();
    const session = value(device.handleJoinAccept(hex("20493eeb51fba2116f810edb3742975142")));
    expect(session).toMatchObject({ devAddr: "02031980", netId: "221101", appNonce: 5704647 });
  });

  test("refuses a JoinAccept under another key, or with no JoinRequest waiting", () => {
    const device = new SimulatedLoraDevice({ otaa });
    const accept = value(
      buildJoinAccept(
        { appNonce: 1, netId: "000013", devAddr: "26000002", rx1DrOffset: 0, rx2DataRate: 0, rxDelay: 1 },
        hex(APP_KEY),
      ),
    );
    expect(reason(device.handleJoinAccept(accept))).toMatch(/no JoinRequest/);
    device.joinRequest();
    const other = new SimulatedLoraDevice({ otaa: { ...otaa, appKey: NWK } });
    other.joinRequest();
    // A wrong key gives garbage: lora-packet refuses it by the MIC, or earlier when the OptNeg bit comes out set.
    expect(reason(other.handleJoinAccept(accept))).toMatch(/MIC|could not be decrypted/);
    expect(other.joined).toBe(false);
    expect(() => other.uplink({ payload: "x" })).toThrow(/not joined/);
  });
});

describe("uplinks", () => {
  test("ABP uplinks are accepted and decrypted by the network's verifyUplink, FCntUp advancing", () => {
    const device = new SimulatedLoraDevice({ abp: { ...abp, fcntUp: 10 } });
    const first = value(verifyUplink(device.uplink({ fPort: 7, payload: "21.5" }), () => [networkSession(device, 10)]));
    expect(first).toMatchObject({ kind: "accepted", fcnt: 10, nextFCntUp: 11, frame: { fPort: 7, confirmed: false } });
    if (first.kind !== "accepted") throw new Error(first.kind);
    expect(first.payload.toString()).toBe("21.5");
    const confirmed = value(
      verifyUplink(device.uplink({ payload: "x", confirmed: true }), () => [networkSession(device, 11)]),
    );
    expect(confirmed).toMatchObject({ kind: "accepted", fcnt: 11, frame: { confirmed: true, fPort: 1 } });
    expect(device.fcntUp).toBe(12);
  });

  test("a replayed frame is the same bytes, and the network refuses it once it moved on", () => {
    const device = new SimulatedLoraDevice({ abp });
    const sent = device.uplink({ payload: "a" });
    device.uplink({ payload: "b" });
    expect(device.replay(2)).toEqual(sent);
    expect(value(verifyUplink(device.replay(2), () => [networkSession(device, 2, 0)]))).toMatchObject({
      kind: "refused",
      cause: "replay",
    });
    expect(value(verifyUplink(device.replay(), () => [networkSession(device, 2, 0)]))).toMatchObject({
      kind: "retransmission",
    });
  });

  test("a 16-bit device wraps its counter at 65,536, and a reset starts again at 0", () => {
    const device = new SimulatedLoraDevice({ abp: { ...abp, fcntUp: 65_535 }, fcntBits: 16 });
    device.uplink({ payload: "a" });
    expect(device.fcntUp).toBe(0);
    const wrapped = value(verifyUplink(device.uplink({ payload: "b" }), () => [networkSession(device, 0, 0)]));
    expect(wrapped).toMatchObject({ kind: "accepted", fcnt: 0 });
    device.resetFCnt();
    expect(device.fcntUp).toBe(0);
  });

  test("MAC commands go in FOpts (LinkCheckReq), and the network reads them", () => {
    const device = new SimulatedLoraDevice({ abp });
    const phy = device.uplink({ payload: "x", macCommands: [{ type: "LinkCheckReq" }] });
    const v = value(verifyUplink(phy, () => [networkSession(device, 0)]));
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(decodeUplinkMacCommands(v.macCommands).commands).toEqual([{ type: "LinkCheckReq" }]);
  });
});

describe("downlinks", () => {
  const keys = { devAddr: abp.devAddr, nwkSKey: hex(NWK), appSKey: hex(APP) };
  const mac = (...c: Parameters<typeof encodeDownlinkMacCommands>[0]) => value(encodeDownlinkMacCommands(c));

  test("a confirmed downlink is decrypted, and the next uplink ACKs it", () => {
    const device = new SimulatedLoraDevice({ abp });
    const phy = value(
      buildDownlink({ ...keys, fcntDown: 0, confirmed: true, fPort: 3, payload: Buffer.from("on") }),
    ).phy;
    const d = value(device.handleDownlink(phy));
    expect(d).toMatchObject({ fcnt: 0, fPort: 3, confirmed: true, ack: false });
    expect(d.payload.toString()).toBe("on");
    expect(device.fcntDown).toBe(1);
    const up = value(verifyUplink(device.uplink(), () => [networkSession(device, 0)]));
    expect(up).toMatchObject({ kind: "accepted", frame: { ack: true, fPort: null } });
    expect(device.ackPending).toBe(false);
  });

  test("an ACK from the network marks the confirmed uplink acknowledged; a replayed downlink is refused", () => {
    const device = new SimulatedLoraDevice({ abp });
    device.uplink({ payload: "x", confirmed: true });
    const ack = value(buildDownlink({ ...keys, fcntDown: 4, ack: true })).phy;
    expect(value(device.handleDownlink(ack))).toMatchObject({ ack: true, fPort: null, fcnt: 4 });
    expect(device.lastConfirmedAcked).toBe(true);
    expect(reason(device.handleDownlink(ack))).toMatch(/replay/);
  });

  test("DevStatusReq and LinkADRReq are answered in the next uplink's FOpts, and ADR is applied", () => {
    const device = new SimulatedLoraDevice({ abp, mac: { battery: 180, margin: -3 } });
    const fOpts = mac(
      { type: "DevStatusReq" },
      { type: "LinkADRReq", dataRate: 3, txPower: 2, channelMask: 7, channelMaskControl: 0, nbTrans: 1 },
    );
    const d = value(device.handleDownlink(value(buildDownlink({ ...keys, fcntDown: 0, fOpts })).phy));
    expect(d.macCommands.map((c) => c.type)).toEqual(["DevStatusReq", "LinkADRReq"]);
    expect(device.settings).toMatchObject({ dataRate: 3, txPower: 2 });
    expect(device.nextRadio().datr).toBe("SF9BW125");
    const v = value(verifyUplink(device.uplink({ payload: "x" }), () => [networkSession(device, 0)]));
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(decodeUplinkMacCommands(v.macCommands).commands).toEqual([
      { type: "DevStatusAns", battery: 180, margin: -3 },
      { type: "LinkADRAns", powerAck: true, dataRateAck: true, channelMaskAck: true },
    ]);
    expect(device.pendingMacAnswers).toEqual([]);
  });

  test("MAC commands on FPort 0 are read, LinkCheckAns kept, and a refused LinkADRReq leaves the data rate", () => {
    const device = new SimulatedLoraDevice({ abp, mac: { refuseLinkAdr: { dataRate: true } } });
    const payload = mac(
      { type: "LinkCheckAns", margin: 12, gatewayCount: 3 },
      { type: "LinkADRReq", dataRate: 0, txPower: 1, channelMask: 7, channelMaskControl: 0, nbTrans: 1 },
    );
    value(device.handleDownlink(value(buildDownlink({ ...keys, fcntDown: 0, fPort: 0, payload })).phy));
    expect(device.linkCheck).toEqual({ margin: 12, gatewayCount: 3 });
    expect(device.settings.dataRate).toBe(5);
    expect(device.pendingMacAnswers).toEqual([
      { type: "LinkADRAns", powerAck: true, dataRateAck: false, channelMaskAck: true },
    ]);
  });
});
