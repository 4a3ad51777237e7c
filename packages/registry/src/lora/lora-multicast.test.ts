import { describe, expect, it } from "vitest";
import { multicastSessionKeys } from "./lora-multicast.js";

describe("multicastSessionKeys", () => {
  // Expected blocks computed with `openssl enc -aes-128-ecb -nopad` over 0x01|McAddr LSB first|pad16 (and 0x02).
  it("derives McAppSKey and McNwkSKey from the McKey and the McAddr least significant byte first (TS005)", () => {
    expect(multicastSessionKeys("000102030405060708090a0b0c0d0e0f", "01AB23CD")).toEqual({
      mcAppSKey: "BB1790A39F1262BF152D58288954B5B4",
      mcNwkSKey: "4C73A2261B3A677B56BCF4E1D5DB55FD",
    });
  });

  it("gives another group address other keys", () => {
    const a = multicastSessionKeys("000102030405060708090a0b0c0d0e0f", "01AB23CD");
    const b = multicastSessionKeys("000102030405060708090a0b0c0d0e0f", "CD23AB01");
    expect(b.mcAppSKey).not.toBe(a.mcAppSKey);
    expect(b.mcNwkSKey).not.toBe(a.mcNwkSKey);
  });
});
