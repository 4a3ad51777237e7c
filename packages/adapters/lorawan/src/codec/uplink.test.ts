/**
 * Data frames: parsed, checked against published vectors, matched to their session, and the downlinks built for the
 * device; how each fcntCheck mode judges the frame counter is in uplink.fcnt-check.test.ts.
 */
import { describe, expect, test } from "vitest";
import { loraPacket } from "./lora-packet.js";
import { reason, value } from "./result-test-kit.js";
import { buildDownlink, parseDataFrame, verifyUplink, type FCntCheck } from "./uplink.js";
import { ADDR, APP, bytes, device, hex, NWK, only, uplink, verdict } from "./uplink-test-kit.js";

describe("parseDataFrame", () => {
  // lora-packet __tests__/mic_test.ts and decrypt_test.ts.
  test("reads the header of lora-packet's vector 40F17DBE…: DevAddr 49be7df1, FCnt 2, FPort 1", () => {
    expect(value(parseDataFrame(hex("40F17DBE4900020001954378762B11FF0D")))).toEqual({
      mType: 2,
      uplink: true,
      confirmed: false,
      devAddr: "49be7df1",
      adr: false,
      adrAckReq: false,
      ack: false,
      fPending: false,
      classB: false,
      fCnt16: 2,
      fOpts: Buffer.alloc(0),
      fPort: 1,
      frmPayload: hex("95437876"),
      mic: hex("2B11FF0D"),
    });
  });

  test("reads every FCtrl flag, FOpts and the direction", () => {
    const up = value(parseDataFrame(bytes(0x80, 4, 3, 2, 1, 0xc3, 0x34, 0x12, 6, 0x73, 7, 10, 1, 2, 3, 4, 5, 6, 7)));
    expect(up).toMatchObject({ mType: 4, uplink: true, confirmed: true, adr: true, adrAckReq: true, ack: false });
    expect(up).toMatchObject({ devAddr: "01020304", fCnt16: 0x1234, fOpts: bytes(6, 0x73, 7), fPort: 10 });
    const down = value(parseDataFrame(bytes(0x60, 4, 3, 2, 1, 0xb0, 0, 0, 9, 9, 9, 9)));
    expect(down).toMatchObject({ mType: 3, uplink: false, adr: true, ack: true, fPending: true, classB: false });
    expect(down).toMatchObject({ fPort: null, frmPayload: Buffer.alloc(0) });
  });

  test.each([
    [bytes(0x40, 1, 2, 3, 4, 0, 0, 0, 1, 2, 3), /at least 12 bytes, got 11/],
    [bytes(0x00, ...Array<number>(22).fill(0)), /MType 0 is not a data frame/],
    [bytes(0x20, ...Array<number>(16).fill(0)), /MType 1 is not a data frame/],
    [bytes(0xe0, ...Array<number>(16).fill(0)), /MType 7 is not a data frame/],
    [bytes(0x41, ...Array<number>(16).fill(0)), /major version 1 is not LoRaWAN R1/],
    [bytes(0x40, 1, 2, 3, 4, 0x05, 0, 0, 1, 2, 3, 4, 5), /FOptsLen 5 runs past the end of the 13-byte frame/],
    [bytes(0x40, 1, 2, 3, 4, 0x01, 0, 0, 2, 0, 9, 1, 2, 3, 4), /FPort 0 with FOpts/],
  ])("malformed frame %# is refused with a reason", (phy, why) => {
    expect(reason(parseDataFrame(phy))).toMatch(why);
  });
});

describe("verifyUplink against published vectors", () => {
  test("lora-packet vector 40F17DBE…: MIC under NwkSKey 4402…, FRMPayload 'test' under AppSKey ec92…", () => {
    const s = device(1, 0, { devAddr: "49be7df1" });
    const v = verdict(hex("40F17DBE4900020001954378762B11FF0D"), s);
    expect(v).toMatchObject({ kind: "accepted", fcnt: 2, nextFCntUp: 3, missed: 2, reset: false });
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(v.payload.toString()).toBe("test");
    expect(v.frame.fPort).toBe(1);
  });

  test("lora-packet vector with a 44-byte payload decrypts across three AES blocks", () => {
    const phy = hex(
      "40f17dbe490004000155332de41a11adc072553544429ce7787707d1c316e027e7e5e334263376affb8aa17ad30075293f28dea8a20af3c5e7",
    );
    const v = verdict(phy, device(1, 3, { devAddr: "49be7df1" }));
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(v.payload.toString()).toBe("The quick brown fox jumps over the lazy dog.");
  });

  // brocaar/lorawan phypayload_test.go TestPHYPayloadMACPayloadLoRaWAN10.
  const brocaar = (nwk: number, app: number) =>
    device(1, 0, { devAddr: "01020304", nwkSKey: Buffer.alloc(16, nwk), appSKey: Buffer.alloc(16, app) });

  test("brocaar/lorawan vector 'FRMPayload data': ADR, FCnt 1, 'hello'", () => {
    const phy = bytes(64, 4, 3, 2, 1, 128, 1, 0, 1, 166, 148, 100, 38, 21, 214, 195, 181, 130);
    const v = verdict(phy, brocaar(2, 1));
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(v.payload.toString()).toBe("hello");
    expect(v.frame.adr).toBe(true);
    expect(v.fcnt).toBe(1);
  });

  test("brocaar/lorawan vector 'Mac-commands in FOpts': LinkCheckReq and LinkADRAns in the header", () => {
    const phy = bytes(64, 4, 3, 2, 1, 3, 0, 0, 2, 3, 5, 1, 106, 55, 152, 245, 182, 77, 192, 57);
    const v = verdict(phy, brocaar(1, 1));
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(v.macCommands).toEqual(bytes(2, 3, 5));
    expect(v.payload).toEqual(bytes(1, 2, 3, 4));
  });

  test("brocaar/lorawan vector 'Mac-commands in FRMPayload': FPort 0 is decrypted with the NwkSKey", () => {
    const phy = bytes(64, 4, 3, 2, 1, 0, 0, 0, 0, 105, 54, 158, 238, 106, 165, 8);
    const v = verdict(phy, brocaar(1, 9));
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(v.macCommands).toEqual(bytes(2, 3, 5));
    expect(v.payload).toEqual(Buffer.alloc(0));
  });

  // brocaar/lorawan phypayload_test.go ExamplePHYPayload_lorawan10Encode.
  test("brocaar/lorawan example: a confirmed uplink with DevStatusAns in FOpts on FPort 10", () => {
    const s = device(1, 0, {
      devAddr: "01020304",
      nwkSKey: bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16),
      appSKey: bytes(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1),
    });
    const v = verdict(Buffer.from("gAQDAgEDAAAGcwcK4mTU9+EX0sA=", "base64"), s);
    expect(v).toMatchObject({ kind: "accepted", fcnt: 0, nextFCntUp: 1 });
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(v.frame.confirmed).toBe(true);
    expect(v.macCommands).toEqual(bytes(6, 115, 7));
    expect(v.payload).toEqual(bytes(1, 2, 3, 4));
  });
});

describe("verifyUplink: finding the session", () => {
  test("an unknown DevAddr is refused", () => {
    expect(reason(verifyUplink(uplink(0), only(device(1, 0, { devAddr: "26000000" }))))).toMatch(
      /no session has DevAddr 26011bda/,
    );
  });

  test("a frame signed with another key is a MIC mismatch", () => {
    expect(reason(verifyUplink(uplink(0, { nwk: Buffer.alloc(16, 7) }), only(device(1, 0))))).toMatch(
      /MIC does not match the session of DevAddr 26011bda/,
    );
  });

  test("of two devices sharing a DevAddr, the one whose NwkSKey gives the MIC is chosen", () => {
    const other = device(1, 0, { name: "other", nwkSKey: Buffer.alloc(16, 7) });
    const mine = device(1, 0, { name: "mine" });
    expect(verdict(uplink(0), other, mine).session.name).toBe("mine");
    expect(reason(verifyUplink(uplink(0, { nwk: Buffer.alloc(16, 9) }), only(other, mine)))).toMatch(/2 sessions/);
  });

  test("a downlink frame is not taken as an uplink", () => {
    const down = value(buildDownlink({ devAddr: ADDR, nwkSKey: NWK, appSKey: APP, fcntDown: 0, ack: true }));
    expect(reason(verifyUplink(down.phy, only(device(1, 0))))).toMatch(/MType 3 is a downlink/);
  });

  test("malformed frames and bad sessions are refused, never thrown", () => {
    expect(reason(verifyUplink(bytes(0x40, 1, 2), only(device(1, 0))))).toMatch(/at least 12 bytes/);
    expect(reason(verifyUplink(uplink(0), only(device(4 as FCntCheck, 0))))).toMatch(/fcntCheck 4/);
    expect(reason(verifyUplink(uplink(0), only(device(1, 0, { nwkSKey: Buffer.alloc(3) }))))).toMatch(/16 bytes/);
    expect(reason(verifyUplink(uplink(0), only(device(1, -1))))).toMatch(/fcntUp -1/);
  });

  test("random frames for a known DevAddr never throw", () => {
    let seed = 3;
    const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) >> 8) % n;
    const good = uplink(5, { payload: Buffer.alloc(20, 1), fOpts: bytes(2) });
    for (let i = 0; i < 1000; i++) {
      const phy = Buffer.from(good.subarray(0, good.length - rand(12)));
      phy[rand(phy.length)] = rand(256);
      phy[1] = 0xda; // keep the DevAddr so the frame reaches MIC checking
      const r = verifyUplink(phy, only(device(rand(4) as FCntCheck, rand(100))));
      expect(typeof r.ok).toBe("boolean");
    }
  });
});

describe("confirmed uplinks", () => {
  test("a confirmed uplink is flagged so the network ACKs it", () => {
    const v = verdict(uplink(4, { confirmed: true }), device(1, 4));
    expect(v).toMatchObject({ kind: "accepted", frame: { confirmed: true, mType: 4 } });
  });
});

describe("buildDownlink", () => {
  // lora-packet __tests__/mic_test.ts "should calculate & verify correct data packet MIC for ACK".
  test("lora-packet vector 60f17dbe…: an ACK with FPort 1 and no payload, FCnt 2", () => {
    const built = value(
      buildDownlink({ devAddr: "49be7df1", nwkSKey: NWK, appSKey: APP, fcntDown: 2, ack: true, fPort: 1 }),
    );
    expect(built.phy.toString("hex")).toBe("60f17dbe4920020001f9d65d27");
    expect(built.nextFCntDown).toBe(3);
  });

  test("an empty ACK has no port and still carries its MIC", () => {
    const built = value(buildDownlink({ devAddr: ADDR, nwkSKey: NWK, appSKey: APP, fcntDown: 7, ack: true }));
    expect(built.phy).toHaveLength(12);
    expect(value(parseDataFrame(built.phy))).toMatchObject({ mType: 3, ack: true, fPort: null, fCnt16: 7 });
    expect(loraPacket.verifyMIC(loraPacket.fromWire(built.phy), NWK)).toBe(true);
  });

  test("round trip: the device (lora-packet) checks the MIC over the 32-bit FCntDown and decrypts the payload", () => {
    const fcntDown = 70_000;
    const built = value(
      buildDownlink({
        devAddr: ADDR,
        nwkSKey: NWK,
        appSKey: APP,
        fcntDown,
        confirmed: true,
        fPending: true,
        fPort: 5,
        payload: Buffer.from("switch on"),
      }),
    );
    const frame = value(parseDataFrame(built.phy));
    expect(frame).toMatchObject({ mType: 5, confirmed: true, fPending: true, fPort: 5, fCnt16: fcntDown & 0xffff });
    const packet = loraPacket.fromWire(built.phy);
    const msb = bytes(1, 0);
    expect(loraPacket.verifyMIC(packet, NWK, undefined, msb)).toBe(true);
    expect(loraPacket.verifyMIC(packet, NWK)).toBe(false);
    expect(loraPacket.decrypt(packet, APP, NWK, msb).toString()).toBe("switch on");
  });

  test("MAC commands go in FOpts in the clear, or encrypted with the NwkSKey on FPort 0", () => {
    const inHeader = value(
      buildDownlink({ devAddr: ADDR, nwkSKey: NWK, appSKey: APP, fcntDown: 1, fOpts: bytes(2, 7, 1), fPort: 3 }),
    );
    expect(value(parseDataFrame(inHeader.phy)).fOpts).toEqual(bytes(2, 7, 1));
    const onPort0 = value(
      buildDownlink({ devAddr: ADDR, nwkSKey: NWK, appSKey: APP, fcntDown: 1, fPort: 0, payload: bytes(6) }),
    );
    const packet = loraPacket.fromWire(onPort0.phy);
    expect(packet.FRMPayload).not.toEqual(bytes(6));
    expect(loraPacket.decrypt(packet, undefined, NWK)).toEqual(bytes(6));
  });

  test.each([
    [{ fOpts: Buffer.alloc(16) }, /FOpts of 16 bytes exceed the 15/],
    [{ payload: bytes(1) }, /a payload needs an FPort/],
    [{ fPort: 0, fOpts: bytes(2), payload: bytes(6) }, /FPort 0 with FOpts/],
    [{ fPort: 256, payload: bytes(1) }, /FPort 256 must be 0..255/],
    [{ fPort: 1, payload: Buffer.alloc(243) }, /243 bytes exceeds/],
    [{ fcntDown: -1 }, /fcntDown -1/],
    [{ fcntDown: 0xffffffff }, /fcntDown 4294967295/],
    [{ devAddr: "1234" }, /devAddr "1234" must be 8 hex digits/],
    [{ appSKey: Buffer.alloc(2) }, /session keys must be 16 bytes/],
  ])("refuses %j", (patch, why) => {
    expect(reason(buildDownlink({ devAddr: ADDR, nwkSKey: NWK, appSKey: APP, fcntDown: 0, ...patch }))).toMatch(why);
  });
});
