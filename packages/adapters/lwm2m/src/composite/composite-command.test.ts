import { describe, expect, it } from "vitest";
import { parseCompositeCommand } from "./composite-command.js";

const parse = (json: unknown) => parseCompositeCommand(Buffer.from(JSON.stringify(json)));

describe("composite commands", () => {
  it("leaves a single-path command to command.ts", () => {
    expect(parse({ reqID: 1, msgType: "read", data: { path: "/3/0" } })).toBeUndefined();
    expect(parseCompositeCommand(Buffer.from("not json"))).toBeUndefined();
  });

  it("makes paths canonical, sorted and unique", () => {
    expect(parse({ reqID: 1, msgType: "read-composite", data: { paths: ["/3303/0/5700", "/3/0", "/3/0"] } })).toEqual({
      ok: true,
      value: { reqID: 1, msgType: "read-composite", paths: ["/3/0", "/3303/0/5700"] },
    });
  });

  it("types write values by the resource table", () => {
    const parsed = parse({
      reqID: "w",
      msgType: "write-composite",
      data: { content: [{ path: "/1/0/1", value: "60" }] },
    });
    expect(parsed).toEqual({
      ok: true,
      value: {
        reqID: "w",
        msgType: "write-composite",
        values: [{ path: "/1/0/1", value: { type: "integer", value: 60n } }],
      },
    });
  });

  it("refuses what a device request could not carry, with the reason", () => {
    expect(parse({ reqID: 1, msgType: "observe-composite", data: {} })).toMatchObject({ ok: false });
    expect(parse({ reqID: 1, msgType: "observe-composite", data: { paths: ["/x"] } })).toMatchObject({ ok: false });
    expect(parse({ msgType: "read-composite", data: { paths: ["/3"] } })).toEqual({
      ok: false,
      reason: "reqID must be a number or a string",
    });
    expect(
      parse({ reqID: 1, msgType: "write-composite", data: { content: [{ path: "/1/0/1", value: "x" }] } }),
    ).toMatchObject({ ok: false, reason: expect.stringContaining("/1/0/1") });
    expect(
      parse({
        reqID: 1,
        msgType: "write-composite",
        data: {
          content: [
            { path: "/1/0/1", value: 1 },
            { path: "/1/0/1", value: 2 },
          ],
        },
      }),
    ).toEqual({ ok: false, reason: "/1/0/1 is given twice" });
  });
});
