/** The four Modbus data areas, by the leading digit of a `registerAddr`. */
export type ModbusArea = "coil" | "discreteInput" | "inputRegister" | "holdingRegister";

const AREAS: Readonly<Record<string, ModbusArea>> = {
  "0": "coil",
  "1": "discreteInput",
  "3": "inputRegister",
  "4": "holdingRegister",
};

/**
 * The area a Modbus data point's `registerAddr` names, or why it names none: an area digit (0 coils, 1 discrete
 * inputs, 3 input registers, 4 holding registers) and a 1-based register number, 4 digits (1–9999) or 5 digits
 * (1–65536), as `400001` or `40001`. The Modbus adapter parses the same convention (docs/devices/modbus.md).
 */
export function registerArea(addr: string): { area: ModbusArea } | { reason: string } {
  const m = /^([0-9])(\d{4,5})$/.exec(addr);
  const area = m ? AREAS[m[1]!] : undefined;
  if (!m || !area)
    return { reason: "must be an area digit (0 coils, 1 discrete inputs, 3 input, 4 holding registers) and a number" };
  const n = Number(m[2]);
  if (n < 1 || n > 65536) return { reason: "register number must be 1 to 65536" };
  return { area };
}

/** Coils and holding registers are the areas a master can write. */
export const isWritableArea = (area: ModbusArea): boolean => area === "coil" || area === "holdingRegister";
