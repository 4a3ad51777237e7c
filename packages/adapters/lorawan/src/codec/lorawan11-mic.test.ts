import { describe, expect, test } from "vitest";
import { reversed } from "./hex.js";
import { loraPacket } from "./lora-packet.js";
import {
  downlinkMic11,
  foptsCipher11,
  JOIN_REQ_TYPE_JOIN,
  joinAcceptMic11,
  uplinkMic11,
  uplinkMicF,
} from "./lorawan11-mic.js";

const hex = (s: string) => Buffer.from(s, "hex");
const F_KEY = hex("e163635133105cc690cb2d57ba9c31b9");
const S_KEY = hex("05ec7c795b2f0b5bcdfa710db52b9d8f");
const ENC_KEY = hex("44024241ed4ce9a68c6a8bc055233fd3");

describe("uplinkMic11", () => {
  test("matches lora-packet's published 1.1 uplink vector (TxCh 1, no ACK)", () => {
    const phy = hex("40736310e080000000c86c36165131");
    const mic = uplinkMic11(F_KEY, S_KEY, phy.subarray(0, -4), { fcnt: 0, confFCnt: 0, txDr: 0, txCh: 1 });
    expect(mic.toString("hex")).toBe("36165131");
  });

  test("agrees with lora-packet for an acknowledging uplink with a ConfFCnt, TxDr and TxCh", () => {
    const packet = loraPacket.fromFields({
      MType: "Unconfirmed Data Up",
      DevAddr: hex("26011bda"),
      FCnt: hex("0105"),
      FCtrl: { ACK: true },
      FPort: 3,
      payload: Buffer.from("abc"),
    });
    const phy = Buffer.from(packet.getPHYPayload()!);
    // lora-packet takes ConfFCnt most significant byte first and writes it LSB first into B1, as §4.4 does.
    const oracle = loraPacket.calculateMIC(packet, F_KEY, S_KEY, hex("0000"), hex("0a0b0503"));
    const mic = uplinkMic11(F_KEY, S_KEY, phy.subarray(0, -4), { fcnt: 0x0105, confFCnt: 0x0a0b, txDr: 5, txCh: 3 });
    expect(mic.toString("hex")).toBe(Buffer.from(oracle).toString("hex"));
    expect(mic.subarray(2).equals(uplinkMicF(F_KEY, phy.subarray(0, -4), 0x0105))).toBe(true);
  });

  test("changes with the channel, so a frame replayed on another channel fails", () => {
    const phy = hex("40736310e080000000c86c");
    const a = uplinkMic11(F_KEY, S_KEY, phy, { fcnt: 0, confFCnt: 0, txDr: 0, txCh: 1 });
    const b = uplinkMic11(F_KEY, S_KEY, phy, { fcnt: 0, confFCnt: 0, txDr: 0, txCh: 2 });
    expect(a.subarray(0, 2).equals(b.subarray(0, 2))).toBe(false);
    expect(a.subarray(2).equals(b.subarray(2))).toBe(true);
  });
});

describe("downlinkMic11", () => {
  test("agrees with lora-packet for an acknowledging downlink with ConfFCnt in B0", () => {
    const packet = loraPacket.fromFields({
      MType: "Unconfirmed Data Down",
      DevAddr: hex("26011bda"),
      FCnt: hex("0007"),
      FCtrl: { ACK: true },
      FPort: 0,
      payload: Buffer.alloc(0),
    });
    const phy = Buffer.from(packet.getPHYPayload()!);
    // For downlinks lora-packet copies the two ConfFCnt bytes as given: LSB first, as B0 holds them.
    const oracle = loraPacket.calculateMIC(packet, undefined, S_KEY, hex("0000"), hex("3412"));
    expect(downlinkMic11(S_KEY, phy.subarray(0, -4), 7, 0x1234).toString("hex")).toBe(
      Buffer.from(oracle).toString("hex"),
    );
  });

  test("ignores ConfFCnt when the ACK bit is clear", () => {
    const phy = hex("60da1b012600070000");
    expect(downlinkMic11(S_KEY, phy, 7, 0x1234).equals(downlinkMic11(S_KEY, phy, 7, 0))).toBe(true);
  });
});

describe("joinAcceptMic11", () => {
  test("agrees with lora-packet for a JoinAccept with OptNeg answering a JoinRequest", () => {
    const joinEui = hex("70b3d57ed0000001");
    const packet = loraPacket.fromFields({
      MType: "Join Accept",
      AppNonce: hex("000003"),
      NetID: hex("000013"),
      DevAddr: hex("26011bda"),
      DLSettings: 0x80,
      RxDelay: 1,
      CFList: Buffer.alloc(0),
      JoinReqType: JOIN_REQ_TYPE_JOIN,
      AppEUI: joinEui,
      DevNonce: hex("0102"),
    });
    const jsIntKey = hex("000102030405060708090a0b0c0d0e0f");
    const oracle = Buffer.from(loraPacket.calculateMIC(packet, jsIntKey)).toString("hex");
    const plain = Buffer.concat([packet.MHDR!, packet.MACPayload!]);
    const mic = joinAcceptMic11(jsIntKey, JOIN_REQ_TYPE_JOIN, reversed(joinEui), 0x0102, plain);
    expect(mic.toString("hex")).toBe(oracle);
    expect(joinAcceptMic11(jsIntKey, 0, reversed(joinEui), 0x0102, plain).toString("hex")).not.toBe(oracle);
  });
});

describe("foptsCipher11", () => {
  const fopts = hex("0302ff0105");

  test.each([
    ["an uplink", "Unconfirmed Data Up", undefined, false, false],
    ["a downlink counted by NFCntDown (no port)", "Unconfirmed Data Down", undefined, true, false],
    ["a downlink counted by AFCntDown (port 5)", "Unconfirmed Data Down", 5, true, true],
  ])("encrypts %s's FOpts as lora-packet does under the errata", (_what, mtype, port, down, aFCntDown) => {
    const packet = loraPacket.fromFields({
      MType: mtype,
      DevAddr: hex("26011bda"),
      FCnt: hex("0103"),
      FOpts: fopts,
      ...(port === undefined ? {} : { FPort: port, payload: Buffer.from("x") }),
    });
    const oracle = Buffer.from(packet.encryptFOpts(ENC_KEY, undefined, hex("0000")));
    const mine = foptsCipher11(ENC_KEY, fopts, down, aFCntDown, hex("da1b0126"), 0x0103);
    expect(mine.toString("hex")).toBe(oracle.toString("hex"));
    expect(foptsCipher11(ENC_KEY, mine, down, aFCntDown, hex("da1b0126"), 0x0103)).toEqual(fopts);
  });

  test("uses a different keystream for AFCntDown and NFCntDown at the same count", () => {
    const n = foptsCipher11(ENC_KEY, fopts, true, false, hex("da1b0126"), 9);
    const a = foptsCipher11(ENC_KEY, fopts, true, true, hex("da1b0126"), 9);
    expect(n.equals(a)).toBe(false);
  });
});
