import { describe, expect, test } from "vitest";
import {
  formatRegisterAddress,
  formatTagAddress,
  isBitArea,
  isWritableArea,
  parseRegisterAddress,
  parseTagAddress,
  READ_FUNCTION_CODE,
  type ModbusArea,
} from "./register-address.js";

const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};
const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};

describe("parseRegisterAddress", () => {
  test("400001 is holding register offset 0: register numbers are 1-based, wire offsets 0-based", () => {
    expect(value(parseRegisterAddress("400001"))).toEqual({ area: "holdingRegister", offset: 0 });
  });

  test.each([
    ["000001", "coil", 0],
    ["100010", "discreteInput", 9],
    ["300100", "inputRegister", 99],
    ["465536", "holdingRegister", 65535],
    ["00001", "coil", 0],
    ["10002", "discreteInput", 1],
    ["30003", "inputRegister", 2],
    ["40001", "holdingRegister", 0],
    ["49999", "holdingRegister", 9998],
  ] as const)("%s is %s offset %i", (text, area, offset) => {
    expect(value(parseRegisterAddress(text))).toEqual({ area, offset });
  });

  test("a 5-digit and a 6-digit address of the same register parse alike", () => {
    expect(parseRegisterAddress("41234")).toEqual(parseRegisterAddress("401234"));
  });

  test("register number 0 is refused in both widths, since numbering starts at 1", () => {
    expect(reason(parseRegisterAddress("400000"))).toMatch(/number 0/);
    expect(reason(parseRegisterAddress("40000"))).toMatch(/number 0/);
  });

  test("a register number beyond 65536 is refused", () => {
    expect(reason(parseRegisterAddress("465537"))).toMatch(/beyond register number 65536/);
    expect(reason(parseRegisterAddress("499999"))).toMatch(/beyond/);
  });

  test.each(["200001", "500001", "900001", "20001"])("area digit of %s is refused: only 0, 1, 3 and 4 exist", (t) => {
    expect(reason(parseRegisterAddress(t))).toMatch(/area digit must be 0, 1, 3 or 4/);
  });

  test.each(["", "4", "4001", "4000001", " 400001", "400001 ", "+40001", "4000a1", "0x4001", "4e0001", "40001.0"])(
    "%j is refused: only 5 or 6 plain digits are an address",
    (t) => {
      expect(reason(parseRegisterAddress(t))).toMatch(/must be 5 or 6 digits/);
    },
  );
});

describe("formatRegisterAddress", () => {
  test("writes the canonical 6-digit form with the area digit", () => {
    expect(formatRegisterAddress({ area: "holdingRegister", offset: 0 })).toBe("400001");
    expect(formatRegisterAddress({ area: "coil", offset: 0 })).toBe("000001");
    expect(formatRegisterAddress({ area: "discreteInput", offset: 41 })).toBe("100042");
    expect(formatRegisterAddress({ area: "inputRegister", offset: 65535 })).toBe("365536");
  });

  test("round-trips every area at both ends of the offset range", () => {
    for (const area of ["coil", "discreteInput", "inputRegister", "holdingRegister"] as ModbusArea[])
      for (const offset of [0, 1, 9998, 9999, 65534, 65535])
        expect(value(parseRegisterAddress(formatRegisterAddress({ area, offset })))).toEqual({ area, offset });
  });
});

describe("parseTagAddress", () => {
  test("3!400001 is unit 3, holding register offset 0", () => {
    expect(value(parseTagAddress("3!400001"))).toEqual({ unit: 3, area: "holdingRegister", offset: 0 });
  });

  test("units 0 and 255 are the ends the registry allows, with 5-digit addresses too", () => {
    expect(value(parseTagAddress("0!00001"))).toEqual({ unit: 0, area: "coil", offset: 0 });
    expect(value(parseTagAddress("255!30010"))).toEqual({ unit: 255, area: "inputRegister", offset: 9 });
  });

  test.each(["256!400001", "-1!400001", "01!400001", "!400001", "a!400001", "1.5!400001", " 1!400001"])(
    "%j is refused for its unit",
    (t) => {
      expect(reason(parseTagAddress(t))).toMatch(/modBusIndex must be 0 to 255/);
    },
  );

  test("an address without ! is refused", () => {
    expect(reason(parseTagAddress("400001"))).toMatch(/<modBusIndex>!<registerAddr>/);
  });

  test("the register part's reason is passed on", () => {
    expect(reason(parseTagAddress("1!200001"))).toMatch(/area digit/);
    expect(reason(parseTagAddress("1!400001!"))).toMatch(/5 or 6 digits/);
  });

  test("formatting then parsing gives the same tag", () => {
    const tag = { unit: 17, area: "holdingRegister", offset: 99 } as const;
    expect(formatTagAddress(tag)).toBe("17!400100");
    expect(value(parseTagAddress(formatTagAddress(tag)))).toEqual(tag);
  });
});

describe("areas", () => {
  test("coils and discrete inputs are bit areas; coils and holding registers are writable", () => {
    expect([
      isBitArea("coil"),
      isBitArea("discreteInput"),
      isBitArea("inputRegister"),
      isBitArea("holdingRegister"),
    ]).toEqual([true, true, false, false]);
    expect([
      isWritableArea("coil"),
      isWritableArea("discreteInput"),
      isWritableArea("inputRegister"),
      isWritableArea("holdingRegister"),
    ]).toEqual([true, false, false, true]);
  });

  test("each area reads with its function code: 1 coils, 2 discrete inputs, 3 holding, 4 input registers", () => {
    expect(READ_FUNCTION_CODE).toEqual({ coil: 1, discreteInput: 2, holdingRegister: 3, inputRegister: 4 });
  });
});
