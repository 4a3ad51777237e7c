import { describe, expect, test } from "vitest";
import { loraPacket } from "./lora-packet.js";
import { buildDownlink11, type Downlink11 } from "./lorawan11-downlink.js";
import type { SessionKeys11 } from "./lorawan11-keys.js";

const hex = (s: string) => Buffer.from(s, "hex");
const keys: SessionKeys11 = {
  fNwkSIntKey: hex("e163635133105cc690cb2d57ba9c31b9"),
  sNwkSIntKey: hex("05ec7c795b2f0b5bcdfa710db52b9d8f"),
  nwkSEncKey: hex("44024241ed4ce9a68c6a8bc055233fd3"),
  appSKey: hex("ec925802ae430ca77fd3dd73cb2cc588"),
};
const base: Downlink11 = {
  devAddr: "26011bda",
  confirmed: false,
  ack: true,
  confFCnt: 0x0102,
  fPending: false,
  fOpts: hex("0b01"),
  fPort: 9,
  payload: Buffer.from("on"),
  aFCntDown: 40,
  nFCntDown: 3,
};

/** lora-packet as the device: MIC with ConfFCnt (two bytes, LSB first), FOpts and payload decrypted. */
function asDevice(phy: Buffer) {
  const packet = loraPacket.fromWire(phy);
  const micOk = loraPacket.verifyMIC(packet, undefined, keys.sNwkSIntKey, hex("0000"), hex("0201"));
  const payload = Buffer.from(loraPacket.decrypt(packet, keys.appSKey, keys.nwkSEncKey, hex("0000")));
  const fOpts = packet.FOpts && packet.FOpts.length > 0 ? Buffer.from(packet.encryptFOpts(keys.nwkSEncKey)) : hex("");
  return { micOk, payload, fOpts, fCnt: packet.getFCnt() };
}

describe("buildDownlink11", () => {
  test("counts an application downlink with AFCntDown, and the device reads its FOpts and payload", () => {
    const built = buildDownlink11(base, keys);
    if (!built.ok) throw new Error(built.reason);
    expect(built.value).toMatchObject({ counter: "aFCntDown", fcnt: 40 });
    expect(asDevice(built.value.phy)).toEqual({
      micOk: true,
      payload: Buffer.from("on"),
      fOpts: hex("0b01"),
      fCnt: 40,
    });
  });

  test("counts a MAC-only downlink with NFCntDown, its FOpts under the NFCntDown keystream", () => {
    const built = buildDownlink11({ ...base, fPort: null, payload: Buffer.alloc(0) }, keys);
    if (!built.ok) throw new Error(built.reason);
    expect(built.value).toMatchObject({ counter: "nFCntDown", fcnt: 3 });
    const device = asDevice(built.value.phy);
    expect(device).toMatchObject({ micOk: true, fOpts: hex("0b01"), fCnt: 3 });
  });

  test("encrypts FPort 0 MAC commands under the NwkSEncKey", () => {
    const built = buildDownlink11({ ...base, fOpts: Buffer.alloc(0), fPort: 0, payload: hex("0b01") }, keys);
    if (!built.ok) throw new Error(built.reason);
    expect(built.value.counter).toBe("nFCntDown");
    expect(asDevice(built.value.phy)).toMatchObject({ micOk: true, payload: hex("0b01") });
  });

  test.each([
    [{ fOpts: Buffer.alloc(16) }, /15 bytes/],
    [{ fPort: 0 }, /both places/],
    [{ fPort: null }, /needs an FPort/],
    [{ devAddr: "26" }, /devAddr/],
  ])("refuses %o", (change, reason) => {
    expect(buildDownlink11({ ...base, ...change }, keys)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(reason),
    });
  });
});
