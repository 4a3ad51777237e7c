import { createCipheriv } from "node:crypto";
import { describe, expect, test } from "vitest";
import { deriveJoinServerKeys, deriveSessionKeys11 } from "./lorawan11-keys.js";

const hex = (s: string) => Buffer.from(s, "hex");
const APP_KEY = hex("2b7e151628aed2a6abf7158809cf4f3c");
const NWK_KEY = hex("000102030405060708090a0b0c0d0e0f");

/** The specification's formula, computed here with node:crypto: aes128_encrypt(key, block). */
function aesBlock(key: Buffer, block: Buffer): string {
  return createCipheriv("aes-128-ecb", key, null).setAutoPadding(false).update(block).toString("hex");
}

/** type | JoinNonce (3, LSB first) | JoinEUI (8, LSB first) | DevNonce (2, LSB first) | pad16. */
function sessionBlock(type: number, joinNonce: number, joinEui: string, devNonce: number): Buffer {
  const b = Buffer.alloc(16);
  b[0] = type;
  b.writeUIntLE(joinNonce, 1, 3);
  hex(joinEui).reverse().copy(b, 4);
  b.writeUInt16LE(devNonce, 12);
  return b;
}

describe("deriveSessionKeys11", () => {
  const join = { joinNonce: 0x123456, joinEui: "70b3d57ed0000001", devNonce: 0x0102 };

  test("derives FNwkSIntKey, SNwkSIntKey and NwkSEncKey from the NwkKey and AppSKey from the AppKey, per §6.2.2", () => {
    const keys = deriveSessionKeys11(APP_KEY, NWK_KEY, join);
    expect(keys.ok).toBe(true);
    if (!keys.ok) return;
    const block = (type: number) => sessionBlock(type, join.joinNonce, join.joinEui, join.devNonce);
    expect(keys.value.fNwkSIntKey.toString("hex")).toBe(aesBlock(NWK_KEY, block(0x01)));
    expect(keys.value.appSKey.toString("hex")).toBe(aesBlock(APP_KEY, block(0x02)));
    expect(keys.value.sNwkSIntKey.toString("hex")).toBe(aesBlock(NWK_KEY, block(0x03)));
    expect(keys.value.nwkSEncKey.toString("hex")).toBe(aesBlock(NWK_KEY, block(0x04)));
  });

  test("gives four different keys, and different ones for the next DevNonce", () => {
    const a = deriveSessionKeys11(APP_KEY, NWK_KEY, join);
    const b = deriveSessionKeys11(APP_KEY, NWK_KEY, { ...join, devNonce: join.devNonce + 1 });
    if (!a.ok || !b.ok) throw new Error("derivation refused");
    const all = [...Object.values(a.value), ...Object.values(b.value)].map((k) => k.toString("hex"));
    expect(new Set(all).size).toBe(8);
  });

  test.each([
    [{ joinNonce: 0x1000000 }, /joinNonce/],
    [{ devNonce: -1 }, /devNonce/],
    [{ joinEui: "70b3" }, /joinEui/],
  ])("refuses a bad join field %o", (change, reason) => {
    const keys = deriveSessionKeys11(APP_KEY, NWK_KEY, { ...join, ...change });
    expect(keys.ok).toBe(false);
    if (!keys.ok) expect(keys.reason).toMatch(reason);
  });

  test("refuses keys that are not 16 bytes, naming which", () => {
    const a = deriveSessionKeys11(Buffer.alloc(15), NWK_KEY, join);
    const n = deriveSessionKeys11(APP_KEY, Buffer.alloc(17), join);
    expect(a.ok === false && a.reason).toMatch(/AppKey/);
    expect(n.ok === false && n.reason).toMatch(/NwkKey/);
  });
});

describe("deriveJoinServerKeys", () => {
  test("derives JSIntKey (0x06) and JSEncKey (0x05) from the NwkKey and DevEUI, per §6.1.1.3", () => {
    const devEui = "0004a30b001c0530";
    const keys = deriveJoinServerKeys(NWK_KEY, devEui);
    expect(keys.ok).toBe(true);
    if (!keys.ok) return;
    const block = (type: number) => {
      const b = Buffer.alloc(16);
      b[0] = type;
      hex(devEui).reverse().copy(b, 1);
      return b;
    };
    expect(keys.value.jsIntKey.toString("hex")).toBe(aesBlock(NWK_KEY, block(0x06)));
    expect(keys.value.jsEncKey.toString("hex")).toBe(aesBlock(NWK_KEY, block(0x05)));
  });

  test("refuses a DevEUI that is not 8 bytes", () => {
    const keys = deriveJoinServerKeys(NWK_KEY, "0004");
    expect(keys.ok === false && keys.reason).toMatch(/devEui/);
  });
});
