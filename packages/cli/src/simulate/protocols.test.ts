import { describe, expect, it } from "vitest";
import { SIM_PROTOCOL_NAMES } from "./protocol-names.js";
import { SIM_PROTOCOLS } from "./protocols.js";

describe("the simulated protocols", () => {
  it("are the ones the help names, in the same order", () => {
    expect([...SIM_PROTOCOLS.keys()]).toEqual(SIM_PROTOCOL_NAMES);
  });
});
