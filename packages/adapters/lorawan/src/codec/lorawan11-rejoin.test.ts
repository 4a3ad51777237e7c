import { describe, expect, test } from "vitest";
import { loraPacket } from "./lora-packet.js";
import { buildRejoinRequest, parseRejoinRequest, rejoinMicMatches } from "./lorawan11-rejoin.js";

const hex = (s: string) => Buffer.from(s, "hex");
const KEY = hex("000102030405060708090a0b0c0d0e0f");

describe("Rejoin-Request", () => {
  test("type 0 and 2: NetID, DevEUI and RJcount0, with the MIC lora-packet computes under the SNwkSIntKey", () => {
    for (const type of [0, 2] as const) {
      const built = buildRejoinRequest({ type, netId: "000013", devEui: "0004a30b001c0530", rjCount: 0x0102 }, KEY);
      if (!built.ok) throw new Error(built.reason);
      expect(built.value).toHaveLength(19);
      const packet = loraPacket.fromWire(built.value);
      expect(packet.isRejoinRequestMessage()).toBe(true);
      expect(Buffer.from(loraPacket.calculateMIC(packet, KEY))).toEqual(built.value.subarray(-4));
      expect(parseRejoinRequest(built.value)).toMatchObject({
        ok: true,
        value: { type, netId: "000013", devEui: "0004a30b001c0530", rjCount: 0x0102 },
      });
      expect(rejoinMicMatches(built.value, KEY)).toBe(true);
      expect(rejoinMicMatches(built.value, hex("00".repeat(16)))).toBe(false);
    }
  });

  test("type 1: JoinEUI, DevEUI and RJcount1, with the MIC lora-packet computes under the JSIntKey", () => {
    const r = { type: 1, joinEui: "70b3d57ed0000001", devEui: "0004a30b001c0530", rjCount: 7 } as const;
    const built = buildRejoinRequest(r, KEY);
    if (!built.ok) throw new Error(built.reason);
    expect(built.value).toHaveLength(24);
    expect(Buffer.from(loraPacket.calculateMIC(loraPacket.fromWire(built.value), undefined, KEY))).toEqual(
      built.value.subarray(-4),
    );
    expect(parseRejoinRequest(built.value)).toMatchObject({ ok: true, value: r });
  });

  test.each([
    ["another MType", "40" + "00".repeat(18)],
    ["a RejoinType of 3", "c003" + "00".repeat(17)],
    ["a short type 0", "c000" + "00".repeat(10)],
    ["a short type 1", "c001" + "00".repeat(17)],
  ])("refuses %s", (_what, bytes) => {
    expect(parseRejoinRequest(hex(bytes)).ok).toBe(false);
  });
});
