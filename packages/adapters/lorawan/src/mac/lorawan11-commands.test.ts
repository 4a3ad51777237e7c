import { describe, expect, test } from "vitest";
import { decodeVersionIndication, versionConfirmation } from "./lorawan11-commands.js";

describe("ResetInd/Conf and RekeyInd/Conf", () => {
  test("answers a 1.1 device's RekeyInd with RekeyConf at version 1.1", () => {
    const ind = decodeVersionIndication(Buffer.from([0x0b, 0x01]));
    expect(ind).toEqual({ ok: true, value: { type: "RekeyInd", minor: 1 } });
    if (ind.ok) expect(versionConfirmation(ind.value)).toEqual(Buffer.from([0x0b, 0x01]));
  });

  test("answers a ResetInd from a device of a later minor version with ResetConf at 1.1, ignoring RFU bits", () => {
    const ind = decodeVersionIndication(Buffer.from([0x01, 0xf2]));
    expect(ind).toEqual({ ok: true, value: { type: "ResetInd", minor: 2 } });
    if (ind.ok) expect(versionConfirmation(ind.value)).toEqual(Buffer.from([0x01, 0x01]));
  });

  test.each([
    [[0x0b], /2 bytes/],
    [[0x02, 0x01], /neither/],
  ])("refuses %o", (bytes, reason) => {
    expect(decodeVersionIndication(Buffer.from(bytes))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(reason),
    });
  });
});
