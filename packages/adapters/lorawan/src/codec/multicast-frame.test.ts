import { describe, expect, test } from "vitest";
import { loraPacket } from "./lora-packet.js";
import { encodeMulticastFrame, type MulticastFrame } from "./multicast-frame.js";

const frame: MulticastFrame = {
  mcAddr: "01AB23CD",
  mcNwkSKey: "00112233445566778899aabbccddeeff",
  mcAppSKey: "ffeeddccbbaa99887766554433221100",
  fcnt: 0x00010203,
  fPort: 42,
  payload: Buffer.from("lights on"),
};
const key = (hex: string) => Buffer.from(hex, "hex");
/** The upper 16 bits of a 32-bit counter as lora-packet takes them (its FCntMSBytes, in frame byte order). */
const msb = (fcnt: number) => Buffer.from([(fcnt >>> 16) & 0xff, (fcnt >>> 24) & 0xff]);

describe("encodeMulticastFrame", () => {
  test("builds an Unconfirmed Data Down to the McAddr, no ACK, FPending or FOpts, that lora-packet reads", () => {
    const phy = encodeMulticastFrame(frame);
    expect(phy.ok).toBe(true);
    if (!phy.ok) return;
    // MHDR 0x60, DevAddr LSB first, FCtrl 0, FCnt 16 low bits LSB first, FPort.
    expect(phy.value.subarray(0, 9).toString("hex")).toBe("60cd23ab010003022a");
    const p = loraPacket.fromWire(phy.value);
    expect(p.getMType()).toBe("Unconfirmed Data Down");
    expect(p.getBuffers().DevAddr!.toString("hex")).toBe("01ab23cd");
    expect(p.getFCnt()).toBe(0x0203);
    expect(p.getFPort()).toBe(42);
    expect(p.getBuffers().FOpts!.length).toBe(0);
    expect(p.getFCtrlACK() || p.getFCtrlFPending() || p.getFCtrlADR()).toBe(false);
  });

  test("is signed under the McNwkSKey with the full McFCntDown and decrypts under the McAppSKey", () => {
    const phy = encodeMulticastFrame(frame);
    if (!phy.ok) throw new Error(phy.reason);
    const p = loraPacket.fromWire(phy.value);
    expect(loraPacket.verifyMIC(p, key(frame.mcNwkSKey), undefined, msb(frame.fcnt))).toBe(true);
    expect(loraPacket.verifyMIC(p, key(frame.mcNwkSKey), undefined, msb(0))).toBe(false);
    expect(loraPacket.verifyMIC(p, key(frame.mcAppSKey), undefined, msb(frame.fcnt))).toBe(false);
    const plain = loraPacket.decrypt(p, key(frame.mcAppSKey), key(frame.mcNwkSKey), msb(frame.fcnt));
    expect(Buffer.from(plain).toString()).toBe("lights on");
    expect(p.getBuffers().FRMPayload!.toString()).not.toBe("lights on");
  });

  test.each([
    [{ mcAddr: "01AB23" }, /McAddr/],
    [{ mcNwkSKey: "00" }, /McNwkSKey/],
    [{ mcAppSKey: "zz".repeat(16) }, /McAppSKey/],
    [{ fPort: 0 }, /FPort 0/],
    [{ fPort: 224 }, /FPort 224/],
    [{ fcnt: -1 }, /McFCntDown/],
    [{ payload: Buffer.alloc(243) }, /over 242 bytes/],
  ])("refuses %o", (change, reason) => {
    const r = encodeMulticastFrame({ ...frame, ...change });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(reason);
  });
});
