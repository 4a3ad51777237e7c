import { createCipheriv, createDecipheriv } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  buildJoinAccept,
  buildJoinRequest,
  decodeJoinAccept,
  deriveSessionKeys,
  parseJoinRequest,
  rememberDevNonce,
  verifyJoinRequest,
  type JoinAcceptFields,
} from "./join.js";
import { loraPacket } from "./lora-packet.js";
import { REGIONS } from "./region.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};
const hex = (s: string) => Buffer.from(s, "hex");
const b64 = (s: string) => Buffer.from(s, "base64");
const bytes = (...b: number[]) => Buffer.from(b);
const ones = Buffer.alloc(16, 1);
const oneToSixteen = bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);

/** AES-128-ECB straight from node:crypto, to check the spec's formulas independently of lora-packet. */
const aes = (key: Buffer, data: Buffer, decrypt = false) => {
  const c = decrypt ? createDecipheriv("aes-128-ecb", key, null) : createCipheriv("aes-128-ecb", key, null);
  c.setAutoPadding(false);
  return Buffer.concat([c.update(data), c.final()]);
};

describe("parseJoinRequest and verifyJoinRequest", () => {
  // brocaar/lorawan phypayload_test.go TestPHYPayloadJoinRequest (AppKey 01…01).
  test("brocaar/lorawan vector: JoinEUI 0102030401020304, DevEUI 0203040502030405, DevNonce 4141", () => {
    const phy = b64("AAQDAgEEAwIBBQQDAgUEAwItEGqZDhI=");
    expect(value(verifyJoinRequest(phy, ones))).toEqual({
      appEui: "0102030401020304",
      devEui: "0203040502030405",
      devNonce: 4141,
    });
  });

  // brocaar/lorawan phypayload_test.go ExamplePHYPayload_joinRequest (AppKey 01 02 … 10).
  test("brocaar/lorawan example: DevNonce 771 with AppKey 0102…10", () => {
    const phy = bytes(0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 9, 185, 123, 50);
    expect(value(verifyJoinRequest(phy, oneToSixteen))).toEqual({
      appEui: "0101010101010101",
      devEui: "0202020202020202",
      devNonce: 771,
    });
  });

  // lora-packet __tests__/mic_test.ts "should calculate & verify correct join request packet MIC".
  test("lora-packet vector: MIC C65B1304 under AppKey 98929b92…", () => {
    const phy = hex("0039363463336913AA05693574323831330489C65B1304");
    expect(value(verifyJoinRequest(phy, hex("98929b92c49edba9676d646d3b612456")))).toEqual({
      appEui: "aa13693363343639",
      devEui: "3331383274356905",
      devNonce: 0x8904,
    });
  });

  test("a wrong MIC or a wrong AppKey is refused", () => {
    const phy = hex("0039363463336913AA05693574323831330489C65B1305");
    expect(reason(verifyJoinRequest(phy, hex("98929b92c49edba9676d646d3b612456")))).toMatch(
      /JoinRequest MIC does not match the AppKey/,
    );
    expect(reason(verifyJoinRequest(b64("AAQDAgEEAwIBBQQDAgUEAwItEGqZDhI="), oneToSixteen))).toMatch(/MIC/);
  });

  test("parseJoinRequest reads the device without a key, so the caller can find its AppKey", () => {
    expect(value(parseJoinRequest(b64("AAQDAgEEAwIBBQQDAgUEAwItEGqZDhI=")))).toMatchObject({ devNonce: 4141 });
  });

  test.each([
    [Buffer.alloc(0), /JoinRequest is empty/],
    [Buffer.alloc(22), /a JoinRequest is 23 bytes, got 22/],
    [Buffer.alloc(24), /23 bytes, got 24/],
    [Buffer.concat([bytes(0x40), Buffer.alloc(22)]), /MType 2 is not a JoinRequest/],
    [Buffer.concat([bytes(0x01), Buffer.alloc(22)]), /major version 1 is not LoRaWAN R1/],
  ])("malformed JoinRequest %# is refused with a reason", (phy, why) => {
    expect(reason(verifyJoinRequest(phy, ones))).toMatch(why);
  });

  test("an AppKey that is not 16 bytes is refused, not thrown", () => {
    expect(reason(verifyJoinRequest(b64("AAQDAgEEAwIBBQQDAgUEAwItEGqZDhI="), Buffer.alloc(15)))).toMatch(
      /AppKey must be 16 bytes/,
    );
  });
});

describe("rememberDevNonce", () => {
  test("adds a fresh nonce and refuses one used before", () => {
    expect(value(rememberDevNonce([1, 2], 3))).toEqual([1, 2, 3]);
    expect(reason(rememberDevNonce([1, 2, 3], 2))).toMatch(/DevNonce 2 was used before: a replayed JoinRequest/);
  });

  test("keeps only the newest `keep` nonces", () => {
    expect(value(rememberDevNonce([1, 2, 3], 4, 3))).toEqual([2, 3, 4]);
  });

  test("refuses a value that is no DevNonce", () => {
    expect(reason(rememberDevNonce([], 65536))).toMatch(/0..65535/);
  });
});

const vectorFields: JoinAcceptFields = {
  appNonce: 5704647,
  netId: "221101",
  devAddr: "02031980",
  rx1DrOffset: 0,
  rx2DataRate: 0,
  rxDelay: 0,
};

describe("buildJoinAccept", () => {
  // brocaar/lorawan phypayload_test.go TestPHYPayloadJoinAccept (AppKey 00112233445566778899aabbccddeeff).
  test("brocaar/lorawan vector: JoinNonce 5704647, NetID 221101, DevAddr 02031980", () => {
    const phy = value(buildJoinAccept(vectorFields, hex("00112233445566778899aabbccddeeff")));
    expect(phy.toString("hex")).toBe("20493eeb51fba2116f810edb3742975142");
  });

  // brocaar/lorawan phypayload_test.go ExamplePHYPayload_joinAcceptSend (AppKey 01 02 … 10).
  test("brocaar/lorawan example: JoinNonce 65793, NetID 020202, DevAddr 01020304", () => {
    const fields = {
      appNonce: 65793,
      netId: "020202",
      devAddr: "01020304",
      rx1DrOffset: 0,
      rx2DataRate: 0,
      rxDelay: 0,
    };
    expect(value(buildJoinAccept(fields, oneToSixteen)).toString("base64")).toBe("ICPPM1SJquMYPAvguqje5fM=");
  });

  // lora-packet __tests__/join_accept_encrypt.ts "should create join accept packet with zero value".
  test("lora-packet vector: all-zero fields under the zero key", () => {
    const zero = { appNonce: 0, netId: "000000", devAddr: "00000000", rx1DrOffset: 0, rx2DataRate: 0, rxDelay: 0 };
    expect(value(buildJoinAccept(zero, Buffer.alloc(16))).toString("hex")).toBe("20e3de108795f776b8037610ef7869b5b3");
  });

  test("matches the spec's construction computed with node:crypto: CMAC-less check of the encryption step", () => {
    // §6.2.5: the network encrypts MACPayload | MIC with aes128_decrypt(AppKey, …); so AES-encrypting the sent
    // bytes recovers the plain fields, whatever computed the MIC.
    const appKey = hex("2b7e151628aed2a6abf7158809cf4f3c");
    const fields = { ...vectorFields, rx1DrOffset: 2, rx2DataRate: 3, rxDelay: 1 };
    const phy = value(buildJoinAccept(fields, appKey));
    const plain = aes(appKey, phy.subarray(1));
    expect(plain.subarray(0, 12).toString("hex")).toBe("c70b57" + "011122" + "80190302" + "23" + "01");
    expect(aes(appKey, plain, true)).toEqual(phy.subarray(1));
  });

  test("with a CFList the JoinAccept is 33 bytes and the device reads the 5 extra channels back", () => {
    const appKey = hex("00112233445566778899aabbccddeeff");
    const fields = { ...vectorFields, cfList: REGIONS.EU868.defaultCfList! };
    const phy = value(buildJoinAccept(fields, appKey));
    expect(phy).toHaveLength(33);
    const decoded = value(decodeJoinAccept(phy, appKey));
    expect(decoded.cfList).toEqual(REGIONS.EU868.defaultCfList);
  });

  test("round trip: lora-packet, acting as the device, decrypts what was built and finds the MIC right", () => {
    const appKey = hex("98929b92c49edba9676d646d3b612456");
    const fields: JoinAcceptFields = {
      appNonce: 0xabcdef,
      netId: "000013",
      devAddr: "26011f2a",
      rx1DrOffset: 1,
      rx2DataRate: 3,
      rxDelay: 2,
      cfList: REGIONS.EU868.defaultCfList!,
    };
    const phy = value(buildJoinAccept(fields, appKey));
    const plain = loraPacket.fromWire(loraPacket.decryptJoinAccept(loraPacket.fromWire(phy), appKey));
    expect(loraPacket.verifyMIC(plain, undefined, appKey)).toBe(true);
    expect(plain.AppNonce!.toString("hex")).toBe("abcdef");
    expect(plain.NetID!.toString("hex")).toBe("000013");
    expect(plain.DevAddr!.toString("hex")).toBe("26011f2a");
    expect(plain.getDLSettingsRxOneDRoffset()).toBe(1);
    expect(plain.getDLSettingsRxTwoDataRate()).toBe(3);
    expect(plain.getRxDelayDel()).toBe(2);
    expect(plain.getCFListFreqChFour().readUIntBE(0, 3) * 100).toBe(867_100_000);
    expect(value(decodeJoinAccept(phy, appKey))).toEqual(fields);
  });

  test.each([
    [{ appNonce: 0x1000000 }, /appNonce must be 0..16777215/],
    [{ appNonce: -1 }, /appNonce/],
    [{ rx1DrOffset: 8 }, /rx1DrOffset must be 0..7/],
    [{ rx2DataRate: 16 }, /rx2DataRate must be 0..15/],
    [{ rxDelay: 16 }, /rxDelay must be 0..15/],
    [{ cfList: Buffer.alloc(15) }, /cfList must be 16 bytes/],
    [{ netId: "2211" }, /netId "2211" must be 6 hex digits/],
    [{ devAddr: "0203198g" }, /devAddr "0203198g" must be 8 hex digits/],
  ])("refuses fields %j", (patch, why) => {
    expect(reason(buildJoinAccept({ ...vectorFields, ...patch }, ones))).toMatch(why);
  });

  test("refuses an AppKey that is not 16 bytes", () => {
    expect(reason(buildJoinAccept(vectorFields, Buffer.alloc(8)))).toMatch(/AppKey must be 16 bytes/);
  });
});

describe("decodeJoinAccept", () => {
  test("decrypts the brocaar/lorawan vector back to its fields", () => {
    const phy = hex("20493eeb51fba2116f810edb3742975142");
    expect(value(decodeJoinAccept(phy, hex("00112233445566778899aabbccddeeff")))).toEqual(vectorFields);
  });

  test("a wrong key, a bad length or another MType is refused", () => {
    const phy = hex("20493eeb51fba2116f810edb3742975142");
    expect(reason(decodeJoinAccept(phy, ones))).toMatch(/JoinAccept MIC does not match/);
    expect(reason(decodeJoinAccept(phy.subarray(0, 16), ones))).toMatch(/17 or 33 bytes, got 16/);
    expect(reason(decodeJoinAccept(hex("00493eeb51fba2116f810edb3742975142"), ones))).toMatch(/MType 0/);
  });
});

describe("deriveSessionKeys", () => {
  // chirpstack/chirpstack lrwn/src/keys.rs test lorawan_1_0 (key 0102…08 0102…08, NetID 010203, JoinNonce 65536,
  // DevNonce 258).
  test("chirpstack vector: NwkSKey df53c35f…, AppSKey 927b9c91…", () => {
    const keys = value(
      deriveSessionKeys(hex("01020304050607080102030405060708"), { appNonce: 65536, netId: "010203", devNonce: 258 }),
    );
    expect(keys.nwkSKey.toString("hex")).toBe("df53c35f3034ccced0ff354c70de04df");
    expect(keys.appSKey.toString("hex")).toBe("927b9c911183cffe4cb2ff4b75545f6d");
  });

  // lora-packet __tests__/key_gen_test.ts "should generate valid session keys 1.0".
  test("lora-packet vector: NwkSKey 4e3d6e6a…, AppSKey 610897aa…", () => {
    const keys = value(
      deriveSessionKeys(hex("98929b92c49edba9676d646d3b612456"), {
        appNonce: 0x376338,
        netId: "aabbcc",
        devNonce: 0xf18e,
      }),
    );
    expect(keys.nwkSKey.toString("hex")).toBe("4e3d6e6afbcc67af2ba3c8e8ec4acf4b");
    expect(keys.appSKey.toString("hex")).toBe("610897aa6f1460623443b527d3ac6a9d");
  });

  test("equals aes128_encrypt(AppKey, type | AppNonce | NetID | DevNonce | pad16) computed with node:crypto", () => {
    const appKey = hex("2b7e151628aed2a6abf7158809cf4f3c");
    const join = { appNonce: 0x123456, netId: "00ab01", devNonce: 0xbeef };
    const block = (type: number) =>
      Buffer.concat([bytes(type, 0x56, 0x34, 0x12, 0x01, 0xab, 0x00, 0xef, 0xbe), Buffer.alloc(7)]);
    const keys = value(deriveSessionKeys(appKey, join));
    expect(keys.nwkSKey).toEqual(aes(appKey, block(1)));
    expect(keys.appSKey).toEqual(aes(appKey, block(2)));
  });

  test("refuses bad inputs", () => {
    const join = { appNonce: 1, netId: "000000", devNonce: 1 };
    expect(reason(deriveSessionKeys(Buffer.alloc(4), join))).toMatch(/AppKey must be 16 bytes/);
    expect(reason(deriveSessionKeys(ones, { ...join, appNonce: 2 ** 24 }))).toMatch(/appNonce/);
    expect(reason(deriveSessionKeys(ones, { ...join, devNonce: 70000 }))).toMatch(/devNonce must be 0..65535/);
    expect(reason(deriveSessionKeys(ones, { ...join, netId: "zz0000" }))).toMatch(/netId/);
  });
});

describe("a whole OTAA join, device and network each doing their part", () => {
  test("the device's JoinRequest verifies, and both sides derive the same session keys", () => {
    const appKey = hex("a1b2c3d4e5f60718293a4b5c6d7e8f90");
    // Device side, built with lora-packet.
    const request = loraPacket.fromFields(
      {
        MType: "Join Request",
        AppEUI: hex("70b3d57ed0000001"),
        DevEUI: hex("0004a30b001c0530"),
        DevNonce: hex("1a2b"),
      },
      undefined,
      undefined,
      appKey,
    );
    const req = value(verifyJoinRequest(request.getPHYPayload()!, appKey));
    expect(req).toEqual({ appEui: "70b3d57ed0000001", devEui: "0004a30b001c0530", devNonce: 0x1a2b });

    const fields = { appNonce: 42, netId: "000013", devAddr: "26000001", rx1DrOffset: 0, rx2DataRate: 0, rxDelay: 1 };
    const accept = value(buildJoinAccept(fields, appKey));
    const network = value(deriveSessionKeys(appKey, { ...fields, devNonce: req.devNonce }));

    const heard = value(decodeJoinAccept(accept, appKey));
    const device = loraPacket.generateSessionKeys10(
      appKey,
      hex(heard.netId),
      Buffer.from([0, 0, heard.appNonce]),
      hex("1a2b"),
    );
    expect(network.nwkSKey).toEqual(device.NwkSKey);
    expect(network.appSKey).toEqual(device.AppSKey);
  });
});

describe("buildJoinRequest", () => {
  test("writes the brocaar/lorawan vector byte for byte (DevNonce 4141, AppKey 01…01)", () => {
    const request = { appEui: "0102030401020304", devEui: "0203040502030405", devNonce: 4141 };
    expect(value(buildJoinRequest(request, ones))).toEqual(b64("AAQDAgEEAwIBBQQDAgUEAwItEGqZDhI="));
  });

  test("writes the brocaar/lorawan example (DevNonce 771, AppKey 0102…10) that verifyJoinRequest accepts", () => {
    const request = { appEui: "0101010101010101", devEui: "0202020202020202", devNonce: 771 };
    const phy = value(buildJoinRequest(request, oneToSixteen));
    expect(phy).toEqual(bytes(0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 9, 185, 123, 50));
    expect(value(verifyJoinRequest(phy, oneToSixteen))).toEqual(request);
  });

  test("refuses a short key, a DevNonce beyond 16 bits and an EUI of the wrong length", () => {
    const request = { appEui: "0101010101010101", devEui: "0202020202020202", devNonce: 1 };
    expect(reason(buildJoinRequest(request, Buffer.alloc(8)))).toMatch(/AppKey must be 16 bytes/);
    expect(reason(buildJoinRequest({ ...request, devNonce: 65536 }, ones))).toMatch(/devNonce/);
    expect(reason(buildJoinRequest({ ...request, devEui: "02" }, ones))).toMatch(/devEui/);
  });
});
