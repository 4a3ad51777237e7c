import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signToken, verifyToken } from "./bearer-token.js";

const b64url = (s: string | Buffer) => Buffer.from(s).toString("base64url");
const now = Date.UTC(2030, 0, 1) / 1000;
const claims = { sub: 7, tenantId: "t1", role: "admin", exp: now + 60, gen: 2, jti: "abc" };

/** A compact JWT with any header, signed with HMAC-SHA256 or -SHA512, or unsigned (`none`). */
function forge(header: object, payload: object, secret: string, hash: "sha256" | "sha512" | "none" = "sha256") {
  const body = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${body}.${hash === "none" ? "" : b64url(createHmac(hash, secret).update(body).digest())}`;
}

afterEach(() => vi.useRealTimers());

describe("bearer tokens", () => {
  const at = (epochSeconds: number) => vi.useFakeTimers({ now: epochSeconds * 1000, toFake: ["Date"] });

  it("carry their claims when verified with the secret they were signed with", async () => {
    at(now);
    const token = await signToken(claims, "k");
    expect(JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())).toEqual({ alg: "HS256", typ: "JWT" });
    expect(await verifyToken(token, "k")).toEqual(claims);
  });

  it("are standard HS256 JWTs: one signed elsewhere with the secret is taken", async () => {
    at(now);
    const token = forge({ alg: "HS256", typ: "JWT" }, { ...claims, jti: "elsewhere" }, "k");
    expect(await verifyToken(token, "k")).toEqual({ ...claims, jti: "elsewhere" });
  });

  it("are refused once expired, first use or not", async () => {
    at(now);
    const fresh = await signToken({ ...claims, jti: "fresh" }, "k");
    expect(await verifyToken(fresh, "k")).not.toBeNull();
    const unused = await signToken({ ...claims, jti: "unused" }, "k");
    at(claims.exp);
    expect(await verifyToken(fresh, "k")).toBeNull();
    expect(await verifyToken(unused, "k")).toBeNull();
  });

  it("are refused when tampered with", async () => {
    at(now);
    const [h, , s] = (await signToken(claims, "k")).split(".");
    expect(await verifyToken(`${h}.${b64url(JSON.stringify({ ...claims, role: "x" }))}.${s}`, "k")).toBeNull();
    expect(await verifyToken(`${h}.${b64url(JSON.stringify({ ...claims, sub: 1 }))}.${s}`, "k")).toBeNull();
    expect(await verifyToken("a.b", "k")).toBeNull();
    expect(await verifyToken("", "k")).toBeNull();
  });

  it("are refused with another secret, before and after a first verification", async () => {
    at(now);
    const token = await signToken({ ...claims, jti: "other-secret" }, "k");
    expect(await verifyToken(token, "other")).toBeNull();
    expect(await verifyToken(token, "k")).not.toBeNull();
    expect(await verifyToken(token, "other")).toBeNull();
  });

  it("are refused when they name another algorithm, none included, whatever they are signed with", async () => {
    at(now);
    expect(await verifyToken(forge({ alg: "none", typ: "JWT" }, claims, "k", "none"), "k")).toBeNull();
    expect(await verifyToken(forge({ alg: "none" }, claims, "k"), "k")).toBeNull();
    expect(await verifyToken(forge({ alg: "HS512", typ: "JWT" }, claims, "k", "sha512"), "k")).toBeNull();
    expect(await verifyToken(forge({ alg: "HS512", typ: "JWT" }, claims, "k"), "k")).toBeNull();
  });

  it("are refused when their claims are not those the service issues", async () => {
    at(now);
    const { exp: _exp, ...noExpiry } = claims;
    expect(await verifyToken(forge({ alg: "HS256", typ: "JWT" }, noExpiry, "k"), "k")).toBeNull();
    expect(await verifyToken(forge({ alg: "HS256", typ: "JWT" }, { ...claims, gen: 1.5 }, "k"), "k")).toBeNull();
  });
});
