import { describe, expect, it } from "vitest";
import { tokenClaimsOf } from "./token-claims.js";

describe("tokenClaimsOf", () => {
  const claims = { sub: 7, tenantId: "t1", role: "admin", exp: 2_000_000_000 };

  it("takes the claims this service issues, with or without a token generation and id", () => {
    expect(tokenClaimsOf(claims)).toEqual(claims);
    expect(tokenClaimsOf({ ...claims, gen: 3, jti: "abc" })).toEqual({ ...claims, gen: 3, jti: "abc" });
  });

  it("refuses a payload without expiry, user, tenant or role, or with a generation that is not a whole number", () => {
    const { exp: _exp, ...noExpiry } = claims;
    for (const payload of [
      null,
      "claims",
      noExpiry,
      { ...claims, sub: "7" },
      { ...claims, tenantId: 1 },
      { ...claims, role: undefined },
      { ...claims, gen: 1.5 },
      { ...claims, jti: 5 },
    ])
      expect(tokenClaimsOf(payload), JSON.stringify(payload)).toBeUndefined();
  });
});
