/**
 * The LoRaWAN 1.1 side of bench/lorawan-uplinks.ts (`--lorawan11`): the uplink frames of 1.1 ABP-style sessions
 * (built as a 1.1 device builds them: FOpts under the NwkSEncKey, the two-half MIC over TxDr 5 and TxCh 0, the
 * EU868 868.1 MHz SF7BW125 the bench's gateways report), and the device records whose sessions carry the 1.1 keys.
 */
import type { FakeDevice } from "@iot/adapter-core";
import { deviceUplink11 } from "@iot/adapter-lorawan";

const key = (hex: string) => Buffer.from(hex, "hex");
export const KEYS_11 = {
  fNwkSIntKey: key("e163635133105cc690cb2d57ba9c31b9"),
  sNwkSIntKey: key("05ec7c795b2f0b5bcdfa710db52b9d8f"),
  nwkSEncKey: key("44024241ed4ce9a68c6a8bc055233fd3"),
  appSKey: key("ec925802ae430ca77fd3dd73cb2cc588"),
};

/** A 1.1 uplink of `devAddr` at `fcnt` with a payload on FPort 1 (and, as devices often have, one MAC command). */
export function uplink11(devAddr: string, fcnt: number, payload: Buffer): Buffer {
  return deviceUplink11(
    {
      devAddr,
      fcnt,
      confirmed: false,
      ack: false,
      confFCnt: 0,
      adr: false,
      adrAckReq: false,
      fOpts: Buffer.alloc(0),
      fPort: 1,
      payload,
      txDr: 5,
      txCh: 0,
    },
    KEYS_11,
  );
}

/** The device record of a 1.1 session at `devAddr` (an OTAA device that joined: its session has the 1.1 keys). */
export function device11(deviceIntId: number, devAddr: string, username: string): FakeDevice {
  const hex = (b: Buffer) => b.toString("hex");
  return {
    deviceIntId,
    deviceId: devAddr.toUpperCase(),
    username,
    token: "t",
    lora: {
      activation: "otaa",
      devEui: `70b3d57e${deviceIntId.toString(16).padStart(8, "0")}`,
      appEui: "70b3d57ed0000000",
      appKey: hex(KEYS_11.appSKey),
      nwkKey: hex(KEYS_11.nwkSEncKey),
      macVersion: "1.1",
      canJoin: true,
      fcntCheck: 1,
      region: "EU868",
      classC: false,
      session: {
        devAddr,
        nwkSKey: hex(KEYS_11.fNwkSIntKey),
        appSKey: hex(KEYS_11.appSKey),
        fcntUp: 0,
        fcntDown: 0,
        lorawan11: {
          fNwkSIntKey: hex(KEYS_11.fNwkSIntKey),
          sNwkSIntKey: hex(KEYS_11.sNwkSIntKey),
          nwkSEncKey: hex(KEYS_11.nwkSEncKey),
          nFCntDown: 0,
          aFCntDown: 0,
          joinNonce: 0,
        },
      },
      usedDevNonces: [],
    },
  };
}
