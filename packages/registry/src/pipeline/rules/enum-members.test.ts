import { describe, expect, it } from "vitest";
import { enumContains, enumMembers, numeric } from "./enum-members.js";

describe("enumMembers", () => {
  it("reads plain numbers, texts and booleans as text in stored order, each once", () => {
    expect(enumMembers("[0, 1, 2]")).toEqual(["0", "1", "2"]);
    expect(enumMembers('["auto","manual","auto"]')).toEqual(["auto", "manual"]);
    expect(enumMembers("[true,false]")).toEqual(["true", "false"]);
    expect(enumMembers('[1,"two"]')).toEqual(["1", "two"]);
  });

  it("reads both the code and the label of [code, label] pairs", () => {
    expect(enumMembers('[[0,"off"],[1,"on"]]')).toEqual(["0", "off", "1", "on"]);
  });

  it("reads the plain member values of objects, and the key of a one-member map", () => {
    expect(enumMembers('[{"label":"off","value":0},{"label":"on","value":1}]')).toEqual(["off", "0", "on", "1"]);
    expect(enumMembers('[{"0":"off"},{"1":"on"}]')).toEqual(["0", "off", "1", "on"]);
  });

  it("ignores nulls and nested containers inside items", () => {
    expect(enumMembers('[null, 3, [4, [5]], {"a": {"b": 6}, "c": 7}]')).toEqual(["3", "4", "7"]);
  });

  it("gives null when the point has no usable enum", () => {
    expect(enumMembers(null)).toBeNull();
    expect(enumMembers("")).toBeNull();
    expect(enumMembers("{not json")).toBeNull();
    expect(enumMembers('{"a":1}')).toBeNull();
    expect(enumMembers('"1,2"')).toBeNull();
    expect(enumMembers("[]")).toBeNull();
    expect(enumMembers("[null, []]")).toBeNull();
  });
});

describe("enumContains", () => {
  it("matches equal text", () => {
    expect(enumContains(["auto", "manual"], "auto")).toBe(true);
    expect(enumContains(["auto", "manual"], "Auto")).toBe(false);
  });

  it("matches the same number however it is spelled", () => {
    expect(enumContains(["0", "1"], 1)).toBe(true);
    expect(enumContains(["0", "1"], "1.0")).toBe(true);
    expect(enumContains(["1.50"], 1.5)).toBe(true);
    expect(enumContains(["0", "1"], 2)).toBe(false);
    expect(enumContains(["0", "1"], "2")).toBe(false);
  });

  it("matches true and false to 1 and 0, as member or as value", () => {
    expect(enumContains(["true", "false"], 1)).toBe(true);
    expect(enumContains(["true", "false"], 0)).toBe(true);
    expect(enumContains(["true"], 0)).toBe(false);
    expect(enumContains(["0", "1"], "true")).toBe(true);
    expect(enumContains(["1"], "false")).toBe(false);
  });

  it("does not read a blank text or member as zero", () => {
    expect(enumContains([""], 0)).toBe(false);
    expect(enumContains(["0"], " ")).toBe(false);
    expect(enumContains([""], "")).toBe(true);
  });
});

describe("numeric", () => {
  it("reads finite numbers only, with blanks around them", () => {
    expect(numeric(" 2.5 ")).toBe(2.5);
    expect(numeric("1e3")).toBe(1000);
    expect(numeric("")).toBeNull();
    expect(numeric("abc")).toBeNull();
    expect(numeric("Infinity")).toBeNull();
  });
});
