import { describe, expect, test } from "vitest";
import { keyBlock, masterSecret, prf, pskPremasterSecret, verifyData } from "./prf.js";

const hex = (s: string) => Buffer.from(s.replace(/\s/g, ""), "hex");

describe("prf", () => {
  // The TLS 1.2 PRF (SHA-256) vector published on the IETF TLS list (2009), the one OpenSSL's TLS1-PRF reproduces:
  // `openssl kdf -keylen 100 -kdfopt digest:SHA256 -kdfopt hexsecret:… -kdfopt hexseed:<"test label" + seed> TLS1-PRF`.
  test("matches the published TLS 1.2 PRF SHA-256 vector", () => {
    const out = prf(
      hex("9bbe436ba940f017b17652849a71db35"),
      "test label",
      hex("a0ba9f936cda311827a6f796ffd5198c"),
      100,
    );
    expect(out.toString("hex")).toBe(
      "e3f229ba727be17b8d122620557cd453c2aab21d07c3d495329b52d4e61edb5a6b301791e90d35c9c9a46b4e14baf9af0fa022f7077def17" +
        "abfd3797c0564bab4fbc91666e9def9b97fce34f796789baa48082d122ee42c5a72e5a5110fff70187347b66",
    );
  });

  test("the PSK premaster secret is the key's length, zeros, its length again and the key (RFC 4279 §2)", () => {
    expect(pskPremasterSecret(hex("0a0b0c")).toString("hex")).toBe("0003" + "000000" + "0003" + "0a0b0c");
  });

  test("the extended master secret depends on the session hash only, the plain one on the randoms", () => {
    const pms = pskPremasterSecret(Buffer.from("secret"));
    const a = masterSecret(pms, { extended: true, sessionHash: Buffer.alloc(32, 1) });
    expect(a).toHaveLength(48);
    expect(a).toEqual(prf(pms, "extended master secret", Buffer.alloc(32, 1), 48));
    const b = masterSecret(pms, {
      extended: false,
      clientRandom: Buffer.alloc(32, 1),
      serverRandom: Buffer.alloc(32, 2),
    });
    expect(b).toEqual(prf(pms, "master secret", Buffer.concat([Buffer.alloc(32, 1), Buffer.alloc(32, 2)]), 48));
    expect(a).not.toEqual(b);
  });

  test("the key block is cut client MAC, server MAC, client key, server key, client IV, server IV", () => {
    const master = Buffer.alloc(48, 5);
    const cr = Buffer.alloc(32, 1);
    const sr = Buffer.alloc(32, 2);
    const block = prf(master, "key expansion", Buffer.concat([sr, cr]), 40);
    const keys = keyBlock(master, cr, sr, { macKey: 0, encKey: 16, fixedIv: 4 });
    expect(Buffer.concat([keys.client.encKey, keys.server.encKey, keys.client.fixedIv, keys.server.fixedIv])).toEqual(
      block,
    );
    expect(verifyData(master, "client", Buffer.alloc(32))).toEqual(
      prf(master, "client finished", Buffer.alloc(32), 12),
    );
  });
});
