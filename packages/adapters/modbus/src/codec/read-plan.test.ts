import { describe, expect, test } from "vitest";
import type { ModbusArea } from "./register-address.js";
import { planReads, type ReadRequest, type ReadTag } from "./read-plan.js";

type Tag = ReadTag & { name: string };
const tag = (name: string, offset: number, count = 1, area: ModbusArea = "holdingRegister", unit = 1): Tag => ({
  name,
  unit,
  area,
  offset,
  count,
});
/** A request as `unit/area offset+count: name@at …`, so a whole plan reads at a glance. */
const show = (r: ReadRequest<Tag>) =>
  `${r.unit}/${r.area} ${r.offset}+${r.count}: ${r.tags.map((t) => `${t.tag.name}@${t.at}`).join(" ")}`;

describe("planReads", () => {
  test("contiguous registers of one unit are one request, each tag at its index in the response", () => {
    const plan = planReads([tag("b", 12, 2), tag("a", 10, 2), tag("c", 14, 4)]);
    expect(plan.requests.map(show)).toEqual(["1/holdingRegister 10+8: a@0 b@2 c@4"]);
    expect(plan.refused).toEqual([]);
  });

  test("a gap of exactly maxGap registers is read through; one more splits the request", () => {
    expect(planReads([tag("a", 0, 2), tag("b", 10)], { maxGap: 8 }).requests.map(show)).toEqual([
      "1/holdingRegister 0+11: a@0 b@10",
    ]);
    expect(planReads([tag("a", 0, 2), tag("b", 11)], { maxGap: 8 }).requests.map(show)).toEqual([
      "1/holdingRegister 0+2: a@0",
      "1/holdingRegister 11+1: b@0",
    ]);
  });

  test("the default gap is 8 registers", () => {
    expect(planReads([tag("a", 0), tag("b", 9)]).requests).toHaveLength(1);
    expect(planReads([tag("a", 0), tag("b", 10)]).requests).toHaveLength(2);
  });

  test("maxGap 0 merges only adjacent registers", () => {
    expect(planReads([tag("a", 0), tag("b", 1), tag("c", 3)], { maxGap: 0 }).requests.map(show)).toEqual([
      "1/holdingRegister 0+2: a@0 b@1",
      "1/holdingRegister 3+1: c@0",
    ]);
  });

  test("a request of exactly 125 registers is one read; the 126th register opens the next", () => {
    const exact = Array.from({ length: 125 }, (_, i) => tag(`r${i}`, i));
    const plan = planReads(exact);
    expect(plan.requests).toHaveLength(1);
    expect(plan.requests[0]).toMatchObject({ offset: 0, count: 125 });
    const over = planReads([...exact, tag("r125", 125)]);
    expect(over.requests.map((r) => [r.offset, r.count])).toEqual([
      [0, 125],
      [125, 1],
    ]);
  });

  test("a multi-register tag that would cross the 125 limit starts the next request whole", () => {
    const plan = planReads([tag("a", 0, 2), tag("b", 123, 4)], { maxGap: 200 });
    expect(plan.requests.map(show)).toEqual(["1/holdingRegister 0+2: a@0", "1/holdingRegister 123+4: b@0"]);
    expect(planReads([tag("a", 0, 2), tag("b", 121, 4)], { maxGap: 200 }).requests.map(show)).toEqual([
      "1/holdingRegister 0+125: a@0 b@121",
    ]);
  });

  test("coils and discrete inputs merge up to 2000 bits with their own gap", () => {
    const coils = Array.from({ length: 2001 }, (_, i) => tag(`c${i}`, i, 1, "coil"));
    expect(planReads(coils).requests.map((r) => [r.offset, r.count])).toEqual([
      [0, 2000],
      [2000, 1],
    ]);
    const sparse = [tag("a", 0, 1, "discreteInput"), tag("b", 129, 1, "discreteInput")];
    expect(planReads(sparse).requests).toHaveLength(1);
    expect(planReads(sparse, { maxBitGap: 127 }).requests).toHaveLength(2);
  });

  test("mixed areas and units are never merged and come ordered by unit, area 0 1 3 4 and offset", () => {
    const plan = planReads([
      tag("h", 0, 1, "holdingRegister", 2),
      tag("i", 0, 1, "inputRegister", 1),
      tag("h1", 1, 1, "holdingRegister", 1),
      tag("d", 0, 1, "discreteInput", 1),
      tag("c", 1, 1, "coil", 1),
      tag("h0", 0, 1, "holdingRegister", 1),
    ]);
    expect(plan.requests.map(show)).toEqual([
      "1/coil 1+1: c@0",
      "1/discreteInput 0+1: d@0",
      "1/inputRegister 0+1: i@0",
      "1/holdingRegister 0+2: h0@0 h1@1",
      "2/holdingRegister 0+1: h@0",
    ]);
  });

  test("duplicate and overlapping tags share one read and keep their own offsets", () => {
    const plan = planReads([tag("float", 4, 2), tag("same", 4, 2), tag("low word", 5), tag("bit", 4)]);
    expect(plan.requests).toHaveLength(1);
    expect(plan.requests[0]).toMatchObject({ offset: 4, count: 2 });
    expect(plan.requests[0]!.tags.map((t) => [t.tag.name, t.at])).toEqual(
      expect.arrayContaining([
        ["float", 0],
        ["same", 0],
        ["bit", 0],
        ["low word", 1],
      ]),
    );
    expect(plan.requests[0]!.tags).toHaveLength(4);
  });

  test("a tag inside a longer one does not shrink the request", () => {
    expect(planReads([tag("long", 0, 4), tag("inner", 1), tag("next", 5)]).requests.map(show)).toEqual([
      "1/holdingRegister 0+6: long@0 inner@1 next@5",
    ]);
  });

  test("tags no request can serve are refused with a reason and the rest still planned", () => {
    const bad = [
      tag("zero", 0, 0),
      tag("past end", 65534, 4),
      tag("negative", -1),
      tag("too long", 0, 126),
      tag("too many bits", 0, 2001, "coil"),
      tag("fraction", 1.5),
    ];
    const plan = planReads([...bad, tag("good", 65535)]);
    expect(plan.refused.map((r) => r.tag.name)).toEqual(bad.map((t) => t.name));
    expect(plan.refused.map((r) => r.reason)).toEqual([
      "count 0 is not 1 to 125",
      "offset 65534 + count 4 runs past 65535",
      "offset -1 is not 0 to 65535",
      "count 126 is not 1 to 125",
      "count 2001 is not 1 to 2000",
      "offset 1.5 is not 0 to 65535",
    ]);
    expect(plan.requests.map(show)).toEqual(["1/holdingRegister 65535+1: good@0"]);
  });

  test("a smaller maxRegisters caps requests, and limits beyond the protocol's are held to it", () => {
    const tags = Array.from({ length: 10 }, (_, i) => tag(`r${i}`, i));
    expect(planReads(tags, { maxRegisters: 4 }).requests.map((r) => r.count)).toEqual([4, 4, 2]);
    const many = Array.from({ length: 200 }, (_, i) => tag(`r${i}`, i));
    expect(planReads(many, { maxRegisters: 1000 }).requests.map((r) => r.count)).toEqual([125, 75]);
  });

  test("no tags plan no requests", () => {
    expect(planReads([])).toEqual({ requests: [], refused: [] });
  });
});
