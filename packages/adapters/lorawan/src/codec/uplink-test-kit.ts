/**
 * The device of the uplink tests: a session with the keys of lora-packet's vectors (DevAddr 26011bda), the frames it
 * sends, built with lora-packet as a device builds them, and the verdict verifyUplink gives on them.
 */
import { loraPacket } from "./lora-packet.js";
import { value } from "./result-test-kit.js";
import { verifyUplink, type FCntCheck, type UplinkSession, type UplinkVerdict } from "./uplink.js";

/** Bytes from hex digits. */
export const hex = (s: string) => Buffer.from(s, "hex");
/** Bytes from their values. */
export const bytes = (...b: number[]) => Buffer.from(b);

/** The device's NwkSKey and AppSKey, those of lora-packet's vectors, and its DevAddr. */
export const NWK = hex("44024241ed4ce9a68c6a8bc055233fd3");
export const APP = hex("ec925802ae430ca77fd3dd73cb2cc588");
export const ADDR = "26011bda";

/** A session of the tests, named so that a verdict shows which one it chose. */
export interface Device extends UplinkSession {
  name: string;
}
/** The device's session with this fcntCheck and last accepted FCnt (`patch` changes the rest). */
export const device = (fcntCheck: FCntCheck, fcntUp: number, patch: Partial<Device> = {}): Device => ({
  name: "d1",
  devAddr: ADDR,
  nwkSKey: NWK,
  appSKey: APP,
  fcntUp,
  fcntCheck,
  ...patch,
});
/** The sessions lookup verifyUplink takes, over these sessions only. */
export const only =
  (...sessions: Device[]) =>
  (devAddr: string) =>
    sessions.filter((s) => s.devAddr === devAddr);

/** An uplink as a device builds it with lora-packet; `fcnt` is the device's full counter. */
export function uplink(
  fcnt: number,
  o: { payload?: Buffer; fPort?: number; confirmed?: boolean; fOpts?: Buffer; nwk?: Buffer; addr?: string } = {},
): Buffer {
  const msb = Buffer.from([(fcnt >>> 16) & 0xff, (fcnt >>> 24) & 0xff]);
  const nwk = o.nwk ?? NWK;
  const packet = loraPacket.fromFields(
    {
      MType: o.confirmed ? "Confirmed Data Up" : "Unconfirmed Data Up",
      DevAddr: hex(o.addr ?? ADDR),
      FCnt: Buffer.from([(fcnt >> 8) & 0xff, fcnt & 0xff]),
      FOpts: o.fOpts ?? Buffer.alloc(0),
      FPort: o.fPort ?? 1,
      payload: o.payload ?? Buffer.from("hi"),
    },
    APP,
    nwk,
    undefined,
    msb,
  );
  loraPacket.recalculateMIC(packet, nwk, undefined, msb);
  return Buffer.from(packet.getPHYPayload()!);
}

/** verifyUplink's verdict on a frame, against these sessions; a refusal fails the test. */
export const verdict = (phy: Buffer, ...sessions: Device[]): UplinkVerdict<Device> =>
  value(verifyUplink(phy, only(...sessions)));
