import { describe, expect, it } from "vitest";
import { escapeFormula, unescapeFormula } from "./csv-formula.js";

describe("CSV formula cells", () => {
  it("prefixes a value starting with = + - @ TAB or CR with a single quote", () => {
    expect(escapeFormula("=cmd|' /C calc'!A0")).toBe("'=cmd|' /C calc'!A0");
    for (const first of ["=", "+", "-", "@", "\t", "\r"]) expect(escapeFormula(`${first}x`)).toBe(`'${first}x`);
  });

  it("leaves plain text, a leading quote before anything else and negative numbers as they are", () => {
    for (const v of ["lamp", "'abc", "''", "a=b", "-12.5", "-3", "-1.5e-7", "", '{"a":1}'])
      expect(escapeFormula(v)).toBe(v);
    expect(escapeFormula("-1+2")).toBe("'-1+2");
    expect(escapeFormula("-12.5 ")).toBe("'-12.5 ");
  });

  it("adds one more quote to a value that already looks escaped, so that it reads back as it was", () => {
    expect(escapeFormula("'=1+1")).toBe("''=1+1");
    expect(escapeFormula("''@x")).toBe("'''@x");
  });

  it("reads back every escaped value, and every other cell as it is", () => {
    const values = ["=1+1", "'=1+1", "''=1+1", "+x", "-x", "@x", "\tx", "\rx", "'x", "'", "x'", "-7", "plain", ""];
    for (const v of values) expect(unescapeFormula(escapeFormula(v))).toBe(v);
    expect(unescapeFormula("'abc")).toBe("'abc");
    expect(unescapeFormula("=1+1")).toBe("=1+1");
  });
});
