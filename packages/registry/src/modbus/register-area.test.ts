import { describe, expect, it } from "vitest";
import { isWritableArea, registerArea } from "./register-area.js";

describe("registerArea", () => {
  it("reads the area from the leading digit in both the 5- and 6-digit forms", () => {
    expect(registerArea("400001")).toEqual({ area: "holdingRegister" });
    expect(registerArea("40001")).toEqual({ area: "holdingRegister" });
    expect(registerArea("00001")).toEqual({ area: "coil" });
    expect(registerArea("100010")).toEqual({ area: "discreteInput" });
    expect(registerArea("365536")).toEqual({ area: "inputRegister" });
  });

  it("refuses area 2, register 0, numbers beyond 65536 and anything that is not plain digits", () => {
    for (const bad of ["200001", "400000", "465537", "4001", "4000001", "40x01", " 40001", "-40001", ""])
      expect(registerArea(bad), bad).toHaveProperty("reason");
  });

  it("lets only coils and holding registers be written", () => {
    expect(isWritableArea("coil")).toBe(true);
    expect(isWritableArea("holdingRegister")).toBe(true);
    expect(isWritableArea("inputRegister")).toBe(false);
    expect(isWritableArea("discreteInput")).toBe(false);
  });
});
