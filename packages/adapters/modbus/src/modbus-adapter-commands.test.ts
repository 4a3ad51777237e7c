import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AdapterHarness } from "./adapter-harness.js";
import { tagEntry, tcpChannel } from "./channel-fixture.js";

let h: AdapterHarness;

beforeEach(async () => {
  h = await AdapterHarness.start();
  const RW = { tagattr: "RW" };
  await h.push(
    tcpChannel(h.slave.port, [
      tagEntry("boiler", 1, "burner", "000005", 23, RW),
      tagEntry("boiler", 1, "mode", "400001", 16, { tagattr: "W", upperLimit: 3, lowerLimit: 0 }),
      tagEntry("boiler", 1, "setpoint", "400011", 25, RW),
      tagEntry("boiler", 1, "alarm", "400021", 23, { ...RW, tagarrsz: 4 }),
      tagEntry("boiler", 1, "temperature", "400031", 16),
      tagEntry("boiler", 1, "calibration", "300001", 16, { tagattr: "W" }),
      tagEntry("pump", 2, "speed", "400001", 16, RW),
    ]),
  );
  await h.until(() => h.sessionEvents(1).length === 1 && h.sessionEvents(2).length === 1);
});

afterEach(async () => {
  await h.stop();
});

describe("Modbus adapter: commands", () => {
  it("writes a coil, a holding register and a float, DELIVERED once the slave confirmed them", async () => {
    expect(await h.command(1, "", { burner: true })).toEqual({ status: "DELIVERED" });
    expect(h.slave.get(1, "coil", 4, 1)).toEqual([1]);
    expect(await h.command(1, "commands/set", { mode: 2 })).toEqual({ status: "DELIVERED" });
    expect(h.slave.get(1, "holdingRegister", 0, 1)).toEqual([2]);
    expect(await h.command(1, "", { setpoint: 123.456 })).toEqual({ status: "DELIVERED" });
    expect(h.slave.get(1, "holdingRegister", 10, 2)).toEqual([0x42f6, 0xe979]);
    // A poll every 50 ms; the long wait is for CI, where unit files share their workers with e2e fleets (it once
    // timed out at 3 s there).
    await h.until(() => h.values(1).some((v) => v.setpoint === 123.456 && v.burner === true), 10_000);
  });

  it("sets one bit of a register and leaves the others as they were", async () => {
    h.slave.set(1, "holdingRegister", 20, [0b1000_0000_0000_0001]);
    expect(await h.command(1, "", { alarm: 1 })).toEqual({ status: "DELIVERED" });
    expect(h.slave.get(1, "holdingRegister", 20, 1)).toEqual([0b1000_0000_0001_0001]);
    expect(await h.command(1, "", { alarm: false })).toEqual({ status: "DELIVERED" });
    expect(h.slave.get(1, "holdingRegister", 20, 1)).toEqual([0b1000_0000_0000_0001]);
  });

  it("refuses read-only areas, points not writable, values over their limits and of the wrong type", async () => {
    expect(await h.command(1, "", { calibration: 1 })).toEqual({
      status: "FAILED",
      message: "calibration: is in a read-only area (inputRegister)",
    });
    expect(await h.command(1, "", { temperature: 20 })).toEqual({
      status: "FAILED",
      message: "temperature: is not writable (tagattr R)",
    });
    expect(await h.command(1, "", { mode: 4 })).toEqual({ status: "FAILED", message: "mode: 4 is above upperLimit 3" });
    expect(await h.command(1, "", { setpoint: "hot" })).toEqual({
      status: "FAILED",
      message: 'setpoint: value "hot" must be a finite number',
    });
    expect(h.slave.get(1, "holdingRegister", 0, 1)).toEqual([0]);
  });

  it("answers FAILED with the slave's exception code and name when it refuses the write", async () => {
    h.slave.failWrites(1, "holdingRegister", 0, 3);
    expect(await h.command(1, "", { mode: 1 })).toEqual({
      status: "FAILED",
      message: "mode: exception 3 (Illegal Data Value)",
    });
  });

  it("answers FAILED when the slave does not answer the write", async () => {
    h.slave.silent.add(2);
    expect(await h.command(2, "", { speed: 5 })).toEqual({
      status: "FAILED",
      message: "speed: no answer within 200 ms",
    });
  });

  it("writes a slave's points sent to the gateway on devices/<deviceID>/…", async () => {
    expect(await h.command(100, "devices/pump/set", { speed: 900 })).toEqual({ status: "DELIVERED" });
    expect(h.slave.get(2, "holdingRegister", 0, 1)).toEqual([900]);
    expect(await h.command(100, "devices/ghost/set", { speed: 1 })).toEqual({
      status: "FAILED",
      message: "device ghost is not in the gateway's Modbus configuration",
    });
  });

  it("refuses commands to devices without a session on this adapter", async () => {
    expect(await h.command(55, "", { speed: 1 })).toEqual({
      status: "FAILED",
      message: "the Modbus device has no session on this adapter",
    });
  });
});
