import type { DownlinkOutcome } from "@iot/adapter-core";
import { applyBit } from "./codec/value-codec.js";
import type { ModbusLink } from "./transport/modbus-link.js";
import type { WriteStep } from "./write-plan.js";

/**
 * Sends a command's write steps to unit `unit` in order and answers DELIVERED when the slave confirmed every one.
 * A bit of a register is read, changed and written back (functions 3 then 6). The first failure stops the command:
 * FAILED names the points, the slave's exception code and name (or the timeout) and the points already written.
 * Callers run one command per link at a time, so two read-modify-writes of a register never interleave.
 */
export async function runWrites(link: ModbusLink, unit: number, steps: readonly WriteStep[]): Promise<DownlinkOutcome> {
  const written: string[] = [];
  for (const step of steps) {
    try {
      if (step.kind === "write") await link.write(unit, step.write);
      else {
        const [current] = await link.read(unit, "holdingRegister", step.offset, 1);
        const values = [applyBit(current as number, step.bit, step.value)];
        await link.write(unit, { area: "holdingRegister", offset: step.offset, values });
      }
      written.push(...step.names);
    } catch (err) {
      const already = written.length > 0 ? ` (already written: ${written.join(", ")})` : "";
      return { status: "FAILED", message: `${step.names.join(", ")}: ${(err as Error).message}${already}` };
    }
  }
  return { status: "DELIVERED" };
}
