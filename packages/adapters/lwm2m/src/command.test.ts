import { describe, expect, it } from "vitest";
import { parseCommand } from "./command.js";
import { commandRequest } from "./command-request.js";
import { preferredFormat } from "./preferred-format.js";

const parse = (json: unknown) => parseCommand(Buffer.from(JSON.stringify(json)));

describe("parseCommand", () => {
  it("takes each msgType with a path of the depth its operation needs", () => {
    expect(parse({ reqID: 1, msgType: "read", data: { path: "3/0/0" } })).toEqual({
      ok: true,
      value: { reqID: 1, msgType: "read", path: "/3/0/0" },
    });
    expect(parse({ reqID: 1, msgType: "delete", data: { path: "/3303" } })).toMatchObject({ ok: false });
    expect(parse({ reqID: 1, msgType: "create", data: { path: "/3303/0" } })).toMatchObject({ ok: false });
    expect(parse({ reqID: 1, msgType: "execute", data: { path: "/3/0/4" } })).toMatchObject({ ok: true });
  });

  it("types write values from the resource table and refuses values that do not fit", () => {
    const ok = parse({ reqID: "a", msgType: "write", data: { path: "/3303/0/5700", value: "21.5" } });
    expect(ok).toMatchObject({
      ok: true,
      value: { values: [{ path: "/3303/0/5700", value: { type: "float", value: 21.5 } }] },
    });
    expect(parse({ reqID: "a", msgType: "write", data: { path: "/3/0/9", value: "x" } })).toMatchObject({ ok: false });
    const outside = parse({
      reqID: 1,
      msgType: "write",
      data: { path: "/3/0", content: [{ path: "/4/0/1", value: 1 }] },
    });
    expect(outside).toMatchObject({ ok: false, reason: "/4/0/1 lies outside /3/0" });
  });

  it("refuses a missing reqID, unknown msgType, missing data and write-attr without attributes", () => {
    expect(parse({ msgType: "read", data: { path: "/3" } })).toMatchObject({ ok: false });
    expect(parse({ reqID: 1, msgType: "READ", data: { path: "/3" } })).toMatchObject({ ok: false });
    expect(parse({ reqID: 1, msgType: "read" })).toMatchObject({ ok: false });
    expect(parse({ reqID: 1, msgType: "write-attr", data: { path: "/3" } })).toMatchObject({ ok: false });
    expect(parse({ reqID: 1, msgType: "write-attr", data: { path: "/3", pmin: -1 } })).toMatchObject({ ok: false });
    expect(parseCommand(Buffer.from("{"))).toMatchObject({ ok: false });
  });
});

describe("commandRequest", () => {
  it("puts the path under the client's alternate root and asks for the preferred format", () => {
    const read = parse({ reqID: 1, msgType: "read", data: { path: "/3/0" } });
    if (!read.ok) throw new Error(read.reason);
    expect(commandRequest(read.value, "/lwm2m", 110)).toEqual({
      ok: true,
      value: { method: "GET", path: ["lwm2m", "3", "0"], accept: 110 },
    });
  });
});

describe("preferredFormat", () => {
  it("is TLV for 1.0, SenML JSON for 1.1, and an announced format when the first choice is not announced", () => {
    expect(preferredFormat("1.0", [])).toBe(11542);
    expect(preferredFormat("1.1", [])).toBe(110);
    expect(preferredFormat("1.1", [11542, 112])).toBe(112);
    expect(preferredFormat("1.2", [])).toBe(11544);
    expect(preferredFormat("1.2", [110, 112])).toBe(112);
    expect(preferredFormat("1.1", [110, 11544])).toBe(11544);
    expect(preferredFormat("1.0", [11543])).toBe(11543);
  });
});
