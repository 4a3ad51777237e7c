import { describe, expect, test } from "vitest";
import { deviceUplink11 } from "../sim/device-frames11.js";
import { decodeDownlinkMacCommands, decodeUplinkMacCommands, encodeDownlinkMacCommands } from "../mac/mac-commands.js";
import type { SessionKeys11 } from "./lorawan11-keys.js";
import { uplinkChannelIndex, verifyUplink11 } from "./lorawan11-verify.js";
import { REGIONS } from "./region.js";

const hex = (s: string) => Buffer.from(s, "hex");
const keys: SessionKeys11 = {
  fNwkSIntKey: hex("e163635133105cc690cb2d57ba9c31b9"),
  sNwkSIntKey: hex("05ec7c795b2f0b5bcdfa710db52b9d8f"),
  nwkSEncKey: hex("44024241ed4ce9a68c6a8bc055233fd3"),
  appSKey: hex("ec925802ae430ca77fd3dd73cb2cc588"),
};
const session = {
  devAddr: "26011bda",
  nwkSKey: keys.fNwkSIntKey,
  appSKey: keys.appSKey,
  fcntUp: 0x1fffe,
  fcntCheck: 1 as const,
};
const up = (fcnt: number, txCh = 2, confFCnt?: number) =>
  deviceUplink11(
    {
      devAddr: "26011bda",
      fcnt,
      confirmed: false,
      ack: confFCnt !== undefined,
      confFCnt: confFCnt ?? 0,
      adr: false,
      adrAckReq: false,
      fOpts: hex("0d"),
      fPort: 5,
      payload: Buffer.from("hi"),
      txDr: 5,
      txCh,
    },
    keys,
  );
const radio = { txDr: 5, txCh: 2, confFCnt: 0 };

describe("verifyUplink11", () => {
  test("finds the 32-bit FCnt through the cmacF half across the 16-bit wrap, then opens the frame", () => {
    const v = verifyUplink11(up(0x20001), session, keys, radio);
    expect(v).toMatchObject({ ok: true, value: { kind: "accepted", fcnt: 0x20001, nextFCntUp: 0x20002 } });
    if (v.ok && v.value.kind === "accepted") {
      expect(v.value.payload.toString()).toBe("hi");
      expect(v.value.macCommands).toEqual(hex("0d"));
    }
  });

  test("judges the counter with the session's policy: the last frame again is a retransmission, an older one a replay", () => {
    expect(verifyUplink11(up(0x1fffd), session, keys, radio)).toMatchObject({
      ok: true,
      value: { kind: "retransmission" },
    });
    expect(verifyUplink11(up(0x1fffd), session, keys, { ...radio, txCh: 1 }).ok).toBe(false);
    expect(verifyUplink11(up(0x1fff0), session, keys, radio)).toMatchObject({
      ok: true,
      value: { kind: "refused", cause: "replay" },
    });
  });

  test("checks an acknowledging uplink's cmacS over the ConfFCnt of the confirmed downlink it acknowledges", () => {
    const ack = up(0x1fffe, 2, 0x0102);
    expect(verifyUplink11(ack, session, keys, { ...radio, confFCnt: 0x0102 })).toMatchObject({ ok: true });
    expect(verifyUplink11(ack, session, keys, { ...radio, confFCnt: 0x0201 })).toMatchObject({ ok: false });
  });

  test("refuses a frame whose cmacS covers another channel, and one of another DevAddr", () => {
    expect(verifyUplink11(up(0x1fffe, 4), session, keys, radio)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/cmacS/),
    });
    expect(verifyUplink11(up(0x1fffe), { ...session, devAddr: "26011bdb" }, keys, radio).ok).toBe(false);
  });
});

describe("uplinkChannelIndex", () => {
  test.each([
    ["EU868", 868.1, 125, 0],
    ["EU868", 868.5, 125, 2],
    ["EU868", 867.1, 125, 3],
    ["US915", 902.3, 125, 0],
    ["US915", 914.9, 125, 63],
    ["US915", 903.0, 500, 64],
    ["AU915", 916.8, 125, 8],
    ["CN470", 470.3, 125, 0],
  ] as const)("%s %f MHz at %i kHz is channel %i", (region, freq, bw, index) => {
    expect(uplinkChannelIndex(REGIONS[region], freq, bw)).toEqual({ ok: true, value: index });
  });

  test("refuses a frequency that is no channel of the plan", () => {
    expect(uplinkChannelIndex(REGIONS.EU868, 869.525).ok).toBe(false);
    expect(uplinkChannelIndex(REGIONS.US915, 902.4).ok).toBe(false);
  });
});

describe("LoRaWAN 1.1 MAC commands", () => {
  test("encode as the specification lays them out, and decode back", () => {
    const commands = [
      { type: "ResetConf", minor: 1 },
      { type: "RekeyConf", minor: 1 },
      { type: "ADRParamSetupReq", limitExp: 6, delayExp: 5 },
      { type: "ForceRejoinReq", period: 1, maxRetries: 2, rejoinType: 2, dataRate: 5 },
      { type: "RejoinParamSetupReq", maxTimeN: 10, maxCountN: 3 },
    ] as const;
    const bytes = encodeDownlinkMacCommands(commands);
    expect(bytes).toEqual({ ok: true, value: hex("0101" + "0b01" + "0c65" + "0e250a" + "0fa3") });
    expect(decodeDownlinkMacCommands(hex("0101" + "0b01" + "0c65" + "0e250a" + "0fa3")).commands).toEqual(commands);
  });

  test("reads the device's ResetInd, RekeyInd, ADRParamSetupAns and RejoinParamSetupAns", () => {
    expect(decodeUplinkMacCommands(hex("0101" + "0b01" + "0c" + "0f01")).commands).toEqual([
      { type: "ResetInd", minor: 1 },
      { type: "RekeyInd", minor: 1 },
      { type: "ADRParamSetupAns" },
      { type: "RejoinParamSetupAns", timeOk: true },
    ]);
  });

  test("refuses a ForceRejoinReq of type 1 and fields out of range", () => {
    const force = { type: "ForceRejoinReq", period: 0, maxRetries: 0, rejoinType: 1, dataRate: 0 } as const;
    expect(encodeDownlinkMacCommands([force]).ok).toBe(false);
    expect(encodeDownlinkMacCommands([{ type: "RejoinParamSetupReq", maxTimeN: 16, maxCountN: 0 }]).ok).toBe(false);
  });
});
