import { describe, expect, test } from "vitest";
import { loraPacket } from "./lora-packet.js";
import { buildJoinAccept11, decodeJoinAccept11 } from "./lorawan11-join-accept.js";
import { deriveJoinServerKeys } from "./lorawan11-keys.js";
import { JOIN_REQ_TYPE_JOIN } from "./lorawan11-mic.js";

const hex = (s: string) => Buffer.from(s, "hex");
const NWK_KEY = hex("000102030405060708090a0b0c0d0e0f");
const DEV_EUI = "0004a30b001c0530";
const ctx = { joinReqType: JOIN_REQ_TYPE_JOIN, joinEui: "70b3d57ed0000001", devNonce: 7 };
const fields = { appNonce: 3, netId: "000013", devAddr: "26011bda", rx1DrOffset: 1, rx2DataRate: 3, rxDelay: 1 };

function jsKeys() {
  const k = deriveJoinServerKeys(NWK_KEY, DEV_EUI);
  if (!k.ok) throw new Error(k.reason);
  return k.value;
}

describe("buildJoinAccept11", () => {
  test("builds a JoinAccept that lora-packet decrypts under the NwkKey, with OptNeg and a MIC under the JSIntKey", () => {
    const { jsIntKey } = jsKeys();
    const phy = buildJoinAccept11(fields, ctx, jsIntKey, NWK_KEY);
    expect(phy.ok).toBe(true);
    if (!phy.ok) return;
    expect(phy.value).toHaveLength(17);
    const plain = loraPacket.fromWire(loraPacket.decryptJoinAccept(loraPacket.fromWire(phy.value), NWK_KEY));
    expect(plain.getDLSettingsOptNeg()).toBe(true);
    expect(Buffer.from(plain.DevAddr!).toString("hex")).toBe("26011bda");
    plain.JoinReqType = Buffer.from([JOIN_REQ_TYPE_JOIN]);
    plain.AppEUI = hex(ctx.joinEui);
    plain.DevNonce = hex("0007");
    expect(loraPacket.verifyMIC(plain, jsIntKey)).toBe(true);
  });

  test("round-trips with a CFList through the device side's decoder", () => {
    const { jsIntKey } = jsKeys();
    const cfList = hex("184f84e85684b85e84886684586e8400");
    const phy = buildJoinAccept11({ ...fields, cfList }, ctx, jsIntKey, NWK_KEY);
    if (!phy.ok) throw new Error(phy.reason);
    expect(phy.value).toHaveLength(33);
    expect(decodeJoinAccept11(phy.value, ctx, jsIntKey, NWK_KEY)).toEqual({ ok: true, value: { ...fields, cfList } });
  });

  test("is refused by a device that sent another DevNonce", () => {
    const { jsIntKey } = jsKeys();
    const phy = buildJoinAccept11(fields, ctx, jsIntKey, NWK_KEY);
    if (!phy.ok) throw new Error(phy.reason);
    expect(decodeJoinAccept11(phy.value, { ...ctx, devNonce: 8 }, jsIntKey, NWK_KEY)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/MIC/),
    });
  });

  test("refuses a bad DevAddr and a JoinNonce beyond 24 bits", () => {
    const { jsIntKey } = jsKeys();
    expect(buildJoinAccept11({ ...fields, devAddr: "26" }, ctx, jsIntKey, NWK_KEY).ok).toBe(false);
    expect(buildJoinAccept11({ ...fields, appNonce: 0x1000000 }, ctx, jsIntKey, NWK_KEY).ok).toBe(false);
  });
});
