import { ok, refuse, type Result } from "./result.js";

/** The four Modbus data areas (Modbus Application Protocol V1.1b3 §4.3). */
export type ModbusArea = "coil" | "discreteInput" | "inputRegister" | "holdingRegister";

/** The leading digit of a `registerAddr` for each area (the "Modicon" convention: 0xxxxx, 1xxxxx, 3xxxxx, 4xxxxx). */
export const AREA_PREFIX: Readonly<Record<ModbusArea, number>> = {
  coil: 0,
  discreteInput: 1,
  inputRegister: 3,
  holdingRegister: 4,
};

/** The read function code of each area (§6.1–6.4): 1 coils, 2 discrete inputs, 3 holding, 4 input registers. */
export const READ_FUNCTION_CODE: Readonly<Record<ModbusArea, number>> = {
  coil: 1,
  discreteInput: 2,
  holdingRegister: 3,
  inputRegister: 4,
};

/** Coils and discrete inputs hold single bits; input and holding registers hold 16-bit words. */
export function isBitArea(area: ModbusArea): boolean {
  return area === "coil" || area === "discreteInput";
}

/** Whether a master may write the area: coils and holding registers; inputs are read-only. */
export function isWritableArea(area: ModbusArea): boolean {
  return area === "coil" || area === "holdingRegister";
}

/** A parsed `registerAddr`: its area and the 0-based offset on the wire (0..65535). */
export interface RegisterAddress {
  area: ModbusArea;
  offset: number;
}

/** A parsed tag address `<modBusIndex>!<registerAddr>`: the slave's unit id (0..255) and its register. */
export interface TagAddress extends RegisterAddress {
  unit: number;
}

/** Highest 0-based offset a Modbus request can address (16-bit address field). */
export const MAX_OFFSET = 65535;

/** Highest `modBusIndex` the registry allows (spec: 0 to 255); Modbus itself uses 1..247, 0 being broadcast. */
export const MAX_UNIT = 255;

const AREA_BY_DIGIT: Readonly<Record<string, ModbusArea>> = {
  "0": "coil",
  "1": "discreteInput",
  "3": "inputRegister",
  "4": "holdingRegister",
};

/**
 * Parses a data point's `registerAddr`: an area digit (0 coils, 1 discrete inputs, 3 input registers, 4 holding
 * registers) followed by the 1-based register number, either 5 digits in all (`40001`..`49999`, numbers 1..9999)
 * or 6 digits in all (`400001`..`465536`, numbers 1..65536). The wire offset is the number minus one, so `400001`
 * and `40001` are holding register offset 0. Nothing else is accepted: no spaces, signs, hex, area 2, or number 0.
 */
export function parseRegisterAddress(text: string): Result<RegisterAddress> {
  if (!/^\d{5,6}$/.test(text))
    return refuse(`registerAddr "${text}" must be 5 or 6 digits: an area digit and the 1-based register number`);
  const area = AREA_BY_DIGIT[text[0]!];
  if (area === undefined)
    return refuse(`registerAddr "${text}" starts with ${text[0]}: the area digit must be 0, 1, 3 or 4`);
  const number = Number(text.slice(1));
  if (number < 1) return refuse(`registerAddr "${text}" has register number 0: numbers start at 1`);
  if (number > MAX_OFFSET + 1) return refuse(`registerAddr "${text}" is beyond register number ${MAX_OFFSET + 1}`);
  return ok({ area, offset: number - 1 });
}

/** The canonical 6-digit `registerAddr` of an address (`{holdingRegister, 0}` → `400001`), as formatted for tags. */
export function formatRegisterAddress(address: RegisterAddress): string {
  return `${AREA_PREFIX[address.area]}${String(address.offset + 1).padStart(5, "0")}`;
}

/**
 * Parses a channel tag address `<modBusIndex>!<registerAddr>` (`3!400001`): a decimal unit id 0..255 without
 * leading zeros, `!`, and a `registerAddr` as {@link parseRegisterAddress} accepts it.
 */
export function parseTagAddress(text: string): Result<TagAddress> {
  const bang = text.indexOf("!");
  if (bang < 0) return refuse(`tag address "${text}" must be <modBusIndex>!<registerAddr>`);
  const unitText = text.slice(0, bang);
  if (!/^(0|[1-9]\d{0,2})$/.test(unitText) || Number(unitText) > MAX_UNIT)
    return refuse(`tag address "${text}" has unit "${unitText}": modBusIndex must be 0 to ${MAX_UNIT}`);
  const register = parseRegisterAddress(text.slice(bang + 1));
  if (!register.ok) return register;
  return ok({ unit: Number(unitText), ...register.value });
}

/** The tag address of a unit and register, with the canonical 6-digit `registerAddr` (`3!400001`). */
export function formatTagAddress(address: TagAddress): string {
  return `${address.unit}!${formatRegisterAddress(address)}`;
}
