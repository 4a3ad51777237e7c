import { describe, expect, test } from "vitest";
import { ccm8Open, ccm8Seal, CIPHER_SUITES, gcmOpen, gcmSeal } from "./protection.js";

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ""), "hex");

describe("ccm8", () => {
  // RFC 3610 §8, packet vector #1: 8-byte header as additional data, 8-byte tag.
  test("matches RFC 3610 packet vector #1", () => {
    const key = hex("c0c1c2c3c4c5c6c7c8c9cacbcccdcecf");
    const nonce = hex("00000003020100a0a1a2a3a4a5");
    const aad = hex("0001020304050607");
    const plain = hex("08090a0b0c0d0e0f101112131415161718191a1b1c1d1e");
    const sealed = ccm8Seal(key, nonce, aad, plain);
    expect(sealed.toString("hex")).toBe("588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0");
    expect(ccm8Open(key, nonce, aad, sealed)).toEqual(plain);
    sealed[0]! ^= 1;
    expect(ccm8Open(key, nonce, aad, sealed)).toBeUndefined();
  });
});

describe("gcm", () => {
  // McGrew & Viega, "The Galois/Counter Mode of Operation", AES-128 test case 4 (96-bit IV, 20 bytes of AAD).
  test("matches the GCM specification's test case 4", () => {
    const key = hex("feffe9928665731c6d6a8f9467308308");
    const nonce = hex("cafebabefacedbaddecaf888");
    const aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2");
    const plain = hex(
      `d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39`,
    );
    const sealed = gcmSeal(key, nonce, aad, plain);
    const cipher =
      "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091";
    expect(sealed.toString("hex")).toBe(cipher + "5bc94fbc3221a5db94fae95ae7121a47");
    expect(gcmOpen(key, nonce, aad, sealed)).toEqual(plain);
    sealed[sealed.length - 1]! ^= 1;
    expect(gcmOpen(key, nonce, aad, sealed)).toBeUndefined();
  });
});

describe.each(CIPHER_SUITES.map((s) => [s.name, s] as const))("%s record protection", (_name, suite) => {
  const keys = {
    macKey: Buffer.alloc(suite.sizes.macKey, 1),
    encKey: Buffer.alloc(16, 2),
    fixedIv: Buffer.alloc(suite.sizes.fixedIv, 3),
  };
  const p = suite.protection(keys);

  test("opens what it sealed for every length across two blocks", () => {
    for (let n = 0; n <= 40; n++) {
      const plain = Buffer.alloc(n, n);
      expect(p.open(23, 1, 9 + n, p.seal(23, 1, 9 + n, plain))).toEqual({ ok: true, value: plain });
    }
  });

  test("refuses a record with a flipped bit, another sequence number, type or key", () => {
    const body = p.seal(23, 1, 5, Buffer.from("hello world"));
    for (let i = 0; i < body.length; i++) {
      const bad = Buffer.from(body);
      bad[i]! ^= 0x40;
      expect(p.open(23, 1, 5, bad).ok).toBe(false);
    }
    expect(p.open(23, 1, 6, body).ok).toBe(false);
    expect(p.open(22, 1, 5, body).ok).toBe(false);
    const other = suite.protection({ ...keys, encKey: Buffer.alloc(16, 4) });
    expect(other.open(23, 1, 5, body).ok).toBe(false);
    expect(p.open(23, 1, 5, body.subarray(0, 7)).ok).toBe(false);
  });
});
