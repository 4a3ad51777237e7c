import { describe, expect, test } from "vitest";
import { loraPacket } from "./lora-packet.js";
import type { SessionKeys11 } from "./lorawan11-keys.js";
import { openUplink11 } from "./lorawan11-uplink.js";
import { parseDataFrame } from "./uplink.js";

const hex = (s: string) => Buffer.from(s, "hex");
const keys: SessionKeys11 = {
  fNwkSIntKey: hex("e163635133105cc690cb2d57ba9c31b9"),
  sNwkSIntKey: hex("05ec7c795b2f0b5bcdfa710db52b9d8f"),
  nwkSEncKey: hex("44024241ed4ce9a68c6a8bc055233fd3"),
  appSKey: hex("ec925802ae430ca77fd3dd73cb2cc588"),
};
const ctx = { fcnt: 0x0203, confFCnt: 0, txDr: 5, txCh: 2 };

/** A 1.1 uplink as a device sends it, built by lora-packet: FOpts under NwkSEncKey, MIC with TxDr and TxCh. */
function deviceUplink(fopts: Buffer, port: number, payload: Buffer, fNwk = keys.fNwkSIntKey): Buffer {
  const packet = loraPacket.fromFields(
    { MType: "Unconfirmed Data Up", DevAddr: hex("26011bda"), FCnt: hex("0203"), FOpts: fopts, FPort: port, payload },
    keys.appSKey,
    keys.nwkSEncKey,
  );
  if (fopts.length > 0) packet.encryptFOpts(keys.nwkSEncKey);
  loraPacket.recalculateMIC(packet, fNwk, keys.sNwkSIntKey, hex("0000"), hex("00000502"));
  return Buffer.from(packet.getPHYPayload()!);
}

describe("openUplink11", () => {
  test("checks the MIC and decrypts FOpts (NwkSEncKey) and the application payload (AppSKey)", () => {
    const phy = deviceUplink(hex("0b01"), 7, Buffer.from("hello"));
    const frame = parseDataFrame(phy);
    if (!frame.ok) throw new Error(frame.reason);
    expect(frame.value.fOpts.equals(hex("0b01"))).toBe(false);
    expect(openUplink11(phy, frame.value, keys, ctx)).toEqual({
      ok: true,
      value: { payload: Buffer.from("hello"), macCommands: hex("0b01") },
    });
  });

  test("reads MAC commands from an FPort 0 payload under the NwkSEncKey", () => {
    const phy = deviceUplink(Buffer.alloc(0), 0, hex("0b010d"));
    const frame = parseDataFrame(phy);
    if (!frame.ok) throw new Error(frame.reason);
    expect(openUplink11(phy, frame.value, keys, ctx)).toEqual({
      ok: true,
      value: { payload: Buffer.alloc(0), macCommands: hex("0b010d") },
    });
  });

  test("refuses a frame heard on another channel than the MIC covers, and one under another FNwkSIntKey", () => {
    const phy = deviceUplink(Buffer.alloc(0), 7, Buffer.from("x"));
    const frame = parseDataFrame(phy);
    if (!frame.ok) throw new Error(frame.reason);
    expect(openUplink11(phy, frame.value, keys, { ...ctx, txCh: 3 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/cmacS/),
    });
    const other = deviceUplink(Buffer.alloc(0), 7, Buffer.from("x"), hex("00".repeat(16)));
    const otherFrame = parseDataFrame(other);
    if (!otherFrame.ok) throw new Error(otherFrame.reason);
    expect(openUplink11(other, otherFrame.value, keys, ctx)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/cmacF/),
    });
  });
});
