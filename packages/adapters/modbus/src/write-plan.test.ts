import { describe, expect, it } from "vitest";
import { parsedConfig, tagEntry, tcpChannel } from "./channel-fixture.js";
import { planWrites } from "./write-plan.js";

const W = { tagattr: "W" };
const tags = parsedConfig(
  tcpChannel(502, [
    tagEntry("d", 1, "valve", "000001", 23, W),
    tagEntry("d", 1, "fan", "000002", 19, { tagattr: "RW" }),
    tagEntry("d", 1, "setpoint", "400001", 25, { ...W, upperLimit: 100, lowerLimit: -10 }),
    tagEntry("d", 1, "mode", "400003", 16, W),
    tagEntry("d", 1, "flag", "400010", 23, { ...W, tagarrsz: 3 }),
    tagEntry("d", 1, "reading", "400020", 16),
    tagEntry("d", 1, "input", "300001", 16, W),
    tagEntry("d", 1, "overlap", "400002", 16, W),
  ]),
).channels[0]!.units[0]!.tags;

const plan = (command: unknown, order: "ABCD" | "CDAB" = "ABCD") =>
  planWrites(tags, new TextEncoder().encode(JSON.stringify(command)), order);

describe("planWrites", () => {
  it("encodes a coil, a register and a float in the byte order, one write each", () => {
    expect(plan({ valve: true })).toEqual({
      ok: true,
      value: [{ kind: "write", names: ["valve"], write: { area: "coil", offset: 0, values: [true] } }],
    });
    expect(plan({ mode: 7 })).toMatchObject({
      value: [{ write: { area: "holdingRegister", offset: 2, values: [7] } }],
    });
    expect(plan({ setpoint: 12.5 }, "CDAB")).toMatchObject({ value: [{ write: { values: [0x0000, 0x4148] } }] });
  });

  it("merges adjacent points into one write and puts register bits last", () => {
    expect(plan({ flag: 1, fan: 0, valve: 1, setpoint: 1, mode: 2 })).toEqual({
      ok: true,
      value: [
        { kind: "write", names: ["valve", "fan"], write: { area: "coil", offset: 0, values: [true, false] } },
        {
          kind: "write",
          names: ["setpoint", "mode"],
          write: { area: "holdingRegister", offset: 0, values: [0x3f80, 0, 2] },
        },
        { kind: "bit", names: ["flag"], offset: 9, bit: 3, value: true },
      ],
    });
  });

  it("refuses the whole command, listing every point it cannot write and why", () => {
    const r = plan({ valve: true, reading: 1, input: 1, setpoint: 101, mode: 1.5, nope: 1 });
    expect(r).toEqual({
      ok: false,
      reason: [
        "reading: is not writable (tagattr R)",
        "input: is in a read-only area (inputRegister)",
        "setpoint: 101 is above upperLimit 100",
        "mode: value 1.5 must be an integer",
        "nope: no such data point on this Modbus device",
      ].join("; "),
    });
    expect(plan({ setpoint: -11 })).toEqual({ ok: false, reason: "setpoint: -11 is below lowerLimit -10" });
    expect(plan({ valve: "on" })).toEqual({ ok: false, reason: 'valve: value "on" must be true, false, 1 or 0' });
  });

  it("refuses points whose registers overlap, and payloads that are no command", () => {
    expect(plan({ setpoint: 1, overlap: 2 })).toEqual({
      ok: false,
      reason: "setpoint and overlap overlap: write them in separate commands",
    });
    expect(plan({})).toMatchObject({ ok: false, reason: expect.stringContaining("at least one point") });
    expect(plan([1])).toMatchObject({ ok: false });
    expect(planWrites(tags, new TextEncoder().encode("{"), "ABCD")).toEqual({
      ok: false,
      reason: "the command is not UTF-8 JSON",
    });
  });
});
