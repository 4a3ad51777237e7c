import { generate } from "coap-packet";
import { describe, expect, it } from "vitest";
import { frameProblem } from "./frame-check.js";

const request = generate({
  code: "0.01",
  messageId: 1,
  token: Buffer.from("tok"),
  confirmable: true,
  options: [
    { name: "Uri-Path", value: Buffer.from("a-segment-longer-than-thirteen-bytes") },
    { name: "Uri-Query", value: Buffer.alloc(300, 0x61) },
    { name: "Size1", value: Buffer.from([1]) },
  ],
  payload: Buffer.from("body"),
});

describe("frameProblem", () => {
  it("passes well-formed messages: requests with extended option deltas and lengths, and empty ones", () => {
    expect(frameProblem(request)).toBeUndefined();
    expect(frameProblem(Buffer.from([0x60, 0x00, 0x12, 0x34]))).toBeUndefined();
  });

  it("refuses a short header, another version, a reserved token length and a token past the end", () => {
    expect(frameProblem(Buffer.from([0x40, 0x01, 0x00]))).toMatch(/header/);
    expect(frameProblem(Buffer.from([0x80, 0x01, 0x00, 0x01]))).toMatch(/version/);
    expect(frameProblem(Buffer.from([0x49, 0x01, 0x00, 0x01, ...Buffer.alloc(9)]))).toMatch(/token length 9/);
    expect(frameProblem(Buffer.from([0x44, 0x01, 0x00, 0x01, 1, 2]))).toMatch(/token/);
  });

  it("refuses an empty message with a token or payload", () => {
    expect(frameProblem(Buffer.from([0x61, 0x00, 0x00, 0x01, 0x07]))).toMatch(/empty/);
  });

  it("refuses options cut short, the reserved nibble 15, and a payload marker with nothing after it", () => {
    for (let cut = 12; cut < request.length - 6; cut += 10) {
      expect(frameProblem(request.subarray(0, cut)), `cut at ${cut}`).toBeDefined();
    }
    expect(frameProblem(Buffer.from([0x40, 0x01, 0x00, 0x01, 0xf1, 0x00]))).toMatch(/delta/);
    expect(frameProblem(Buffer.from([0x40, 0x01, 0x00, 0x01, 0xbf]))).toMatch(/length/);
    expect(frameProblem(Buffer.from([0x40, 0x01, 0x00, 0x01, 0xff]))).toMatch(/payload marker/);
  });
});
