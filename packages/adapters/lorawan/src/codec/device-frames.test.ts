import { describe, expect, test } from "vitest";
import { buildUplink, verifyDownlink, type DownlinkSession } from "./device-frames.js";
import { buildDownlink, verifyUplink, type UplinkSession } from "./uplink.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};
const hex = (s: string) => Buffer.from(s, "hex");
const bytes = (...b: number[]) => Buffer.from(b);

const NWK = hex("44024241ed4ce9a68c6a8bc055233fd3");
const APP = hex("ec925802ae430ca77fd3dd73cb2cc588");
const ADDR = "26011bda";
const keys = { devAddr: ADDR, nwkSKey: NWK, appSKey: APP };

describe("buildUplink against published vectors", () => {
  test("lora-packet vector 40F17DBE…: 'test' on FPort 1 with FCnt 2", () => {
    const phy = value(
      buildUplink({ devAddr: "49be7df1", nwkSKey: NWK, appSKey: APP, fcnt: 2, fPort: 1, payload: Buffer.from("test") }),
    );
    expect(phy.toString("hex")).toBe("40f17dbe4900020001954378762b11ff0d");
  });

  // brocaar/lorawan phypayload_test.go TestPHYPayloadMACPayloadLoRaWAN10.
  test("brocaar/lorawan vector 'FRMPayload data': ADR, FCnt 1, 'hello'", () => {
    const phy = value(
      buildUplink({
        devAddr: "01020304",
        nwkSKey: Buffer.alloc(16, 2),
        appSKey: Buffer.alloc(16, 1),
        fcnt: 1,
        adr: true,
        fPort: 1,
        payload: Buffer.from("hello"),
      }),
    );
    expect(phy).toEqual(bytes(64, 4, 3, 2, 1, 128, 1, 0, 1, 166, 148, 100, 38, 21, 214, 195, 181, 130));
  });

  test("brocaar/lorawan vector 'Mac-commands in FRMPayload': FPort 0 encrypted with the NwkSKey", () => {
    const phy = value(
      buildUplink({
        devAddr: "01020304",
        nwkSKey: Buffer.alloc(16, 1),
        appSKey: Buffer.alloc(16, 9),
        fcnt: 0,
        fPort: 0,
        payload: bytes(2, 3, 5),
      }),
    );
    expect(phy).toEqual(bytes(64, 4, 3, 2, 1, 0, 0, 0, 0, 105, 54, 158, 238, 106, 165, 8));
  });
});

describe("buildUplink read back by the network's verifyUplink", () => {
  const session = (fcntUp: number): UplinkSession => ({ ...keys, fcntUp, fcntCheck: 1 });

  test("a confirmed uplink past 65,535 with FOpts and an ACK decrypts to what was sent", () => {
    const phy = value(
      buildUplink({
        ...keys,
        fcnt: 70_000,
        confirmed: true,
        ack: true,
        fOpts: bytes(2),
        fPort: 9,
        payload: Buffer.from("21.5C"),
      }),
    );
    const v = value(verifyUplink(phy, () => [session(69_990)]));
    expect(v).toMatchObject({ kind: "accepted", fcnt: 70_000, nextFCntUp: 70_001 });
    if (v.kind !== "accepted") throw new Error(v.kind);
    expect(v.payload.toString()).toBe("21.5C");
    expect(v.macCommands).toEqual(bytes(2));
    expect(v.frame).toMatchObject({ confirmed: true, ack: true, fPort: 9 });
  });

  test("an empty frame without FPort (a bare ACK or ADRACKReq) carries a MIC the network accepts", () => {
    const phy = value(buildUplink({ ...keys, fcnt: 3, ack: true, adrAckReq: true }));
    expect(phy).toHaveLength(12);
    expect(value(verifyUplink(phy, () => [session(3)]))).toMatchObject({
      kind: "accepted",
      frame: { adrAckReq: true },
    });
  });

  test("the ClassB bit is FCtrl bit 4 of an uplink, read as classB (never as the downlinks' FPending)", () => {
    const phy = value(buildUplink({ ...keys, fcnt: 4, classB: true, fPort: 1, payload: bytes(1) }));
    expect(phy[5]! & 0x10).toBe(0x10);
    expect(value(verifyUplink(phy, () => [session(4)]))).toMatchObject({
      kind: "accepted",
      frame: { classB: true, fPending: false },
    });
    const plain = value(buildUplink({ ...keys, fcnt: 5, fPort: 1, payload: bytes(1) }));
    expect(value(verifyUplink(plain, () => [session(5)]))).toMatchObject({ frame: { classB: false } });
  });

  test("refuses FOpts with FPort 0, a payload without a port and a counter beyond 32 bits", () => {
    expect(reason(buildUplink({ ...keys, fcnt: 1, fPort: 0, fOpts: bytes(2) }))).toMatch(/both places/);
    expect(reason(buildUplink({ ...keys, fcnt: 1, payload: bytes(1) }))).toMatch(/needs an FPort/);
    expect(reason(buildUplink({ ...keys, fcnt: 2 ** 32 }))).toMatch(/fcnt/);
  });
});

describe("verifyDownlink", () => {
  const session = (fcntDown: number): DownlinkSession => ({ ...keys, fcntDown });
  const down = (fcntDown: number, patch: Partial<Parameters<typeof buildDownlink>[0]> = {}) =>
    value(buildDownlink({ ...keys, fcntDown, ...patch })).phy;

  test("lora-packet vector 60f17dbe…: an ACK on FPort 1, FCnt 2", () => {
    const d = value(verifyDownlink(hex("60f17dbe4920020001f9d65d27"), { ...session(0), devAddr: "49be7df1" }));
    expect(d).toMatchObject({ fcnt: 2, nextFCntDown: 3, frame: { ack: true, fPort: 1 } });
  });

  test("a confirmed downlink built by the network past 65,535 is checked and decrypted", () => {
    const phy = down(70_000, { confirmed: true, fPending: true, fPort: 5, payload: Buffer.from("switch on") });
    const d = value(verifyDownlink(phy, session(69_000)));
    expect(d).toMatchObject({ fcnt: 70_000, nextFCntDown: 70_001, frame: { confirmed: true, fPending: true } });
    expect(d.payload.toString()).toBe("switch on");
  });

  test("MAC commands come from FOpts, or from an FPort 0 payload decrypted with the NwkSKey", () => {
    expect(value(verifyDownlink(down(0, { fOpts: bytes(6) }), session(0))).macCommands).toEqual(bytes(6));
    const onPort0 = value(verifyDownlink(down(1, { fPort: 0, payload: bytes(6, 2, 7, 1) }), session(1)));
    expect(onPort0.macCommands).toEqual(bytes(6, 2, 7, 1));
    expect(onPort0.payload).toHaveLength(0);
  });

  test("refuses a replayed counter, another DevAddr, a wrong key and an uplink", () => {
    expect(reason(verifyDownlink(down(4, { ack: true }), session(5)))).toMatch(/replay/);
    expect(reason(verifyDownlink(down(70_000, { ack: true }), session(70_001)))).toMatch(/replay/);
    expect(reason(verifyDownlink(down(0), { ...session(0), devAddr: "26011bdb" }))).toMatch(/not the device's/);
    expect(reason(verifyDownlink(down(0), { ...session(0), nwkSKey: APP }))).toMatch(/MIC/);
    const up = value(buildUplink({ ...keys, fcnt: 0 }));
    expect(reason(verifyDownlink(up, session(0)))).toMatch(/uplink/);
  });
});
