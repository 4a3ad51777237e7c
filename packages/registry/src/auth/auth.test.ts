import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./passwords.js";
import { signToken, verifyToken } from "./tokens.js";

describe("passwords", () => {
  it("verify only the password they were hashed from", async () => {
    const hash = await hashPassword("s3cret!");
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword("s3cret!", hash)).toBe(true);
    expect(await verifyPassword("s3cret", hash)).toBe(false);
    expect(await verifyPassword("s3cret!", "garbage")).toBe(false);
  });

  it("are salted, so equal passwords hash differently", async () => {
    expect(await hashPassword("same")).not.toBe(await hashPassword("same"));
  });
});

describe("tokens", () => {
  const claims = { sub: 7, tenantId: "t1", role: "admin", exp: Math.floor(Date.now() / 1000) + 60 };

  it("carry their claims when signed with the same secret", () => {
    expect(verifyToken(signToken(claims, "k"), "k")).toEqual(claims);
  });

  it("are refused with another secret, when tampered with, or when expired", () => {
    const t = signToken(claims, "k");
    expect(verifyToken(t, "other")).toBeNull();
    const [h, , s] = t.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, role: "x" })).toString("base64url")}.${s}`;
    expect(verifyToken(forged, "k")).toBeNull();
    expect(verifyToken(t, "k", (claims.exp + 1) * 1000)).toBeNull();
    expect(verifyToken("a.b", "k")).toBeNull();
  });

  it("once verified, are still refused with another secret and once expired", () => {
    const t = signToken({ ...claims, jti: "remembered" }, "k");
    expect(verifyToken(t, "k")?.jti).toBe("remembered");
    expect(verifyToken(t, "other")).toBeNull();
    expect(verifyToken(t, "k", (claims.exp + 1) * 1000)).toBeNull();
    expect(verifyToken(t, "k")?.jti).toBe("remembered");
  });

  it("carry the user's token generation and a token id, and refuse a generation that is not a whole number", () => {
    const withGen = { ...claims, gen: 3, jti: "abc" };
    expect(verifyToken(signToken(withGen, "k"), "k")).toEqual(withGen);
    expect(verifyToken(signToken({ ...claims, gen: 1.5 }, "k"), "k")).toBeNull();
  });
});
