import { describe, expect, test } from "vitest";
import { aesCmac, frmPayloadCipher } from "./frame-crypto.js";
import { loraPacket } from "./lora-packet.js";

const hex = (s: string) => Buffer.from(s, "hex");
const KEY = hex("2b7e151628aed2a6abf7158809cf4f3c");

describe("aesCmac", () => {
  // RFC 4493 §4, examples 1-4.
  test.each([
    ["", "bb1d6929e95937287fa37d129b756746"],
    ["6bc1bee22e409f96e93d7e117393172a", "070a16b46b4d4144f79bdd9dd04a287c"],
    [
      "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411",
      "dfa66747de9ae63030ca32611497c827",
    ],
  ])("matches RFC 4493 for the message %s", (message, mac) => {
    expect(aesCmac(KEY, hex(message)).toString("hex")).toBe(mac);
  });
});

describe("frmPayloadCipher", () => {
  test("decrypts what lora-packet encrypted, over several blocks and a 32-bit counter", () => {
    const app = hex("ec925802ae430ca77fd3dd73cb2cc588");
    const nwk = hex("44024241ed4ce9a68c6a8bc055233fd3");
    const payload = Buffer.from("a payload longer than one AES block, 41 b");
    const fcnt = 0x00012345;
    const msb = Buffer.from([(fcnt >>> 16) & 0xff, (fcnt >>> 24) & 0xff]);
    const packet = loraPacket.fromFields(
      {
        MType: "Unconfirmed Data Up",
        DevAddr: hex("26011bda"),
        FCnt: Buffer.from([(fcnt >> 8) & 0xff, fcnt & 0xff]),
        FPort: 1,
        payload,
      },
      app,
      nwk,
      undefined,
      msb,
    );
    const encrypted = Buffer.from(packet.FRMPayload!);
    expect(encrypted.equals(payload)).toBe(false);
    expect(frmPayloadCipher(app, encrypted, false, hex("da1b0126"), fcnt)).toEqual(payload);
  });
});
