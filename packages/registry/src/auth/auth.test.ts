import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "./passwords.js";

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
