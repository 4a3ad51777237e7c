import type { BreachRule, Severity } from "./types.js";

/**
 * The severity of each data point rule: a device declaring a fault is
 * urgent; a measurement outside its limits is major (the process is out of
 * range); a value outside the enumeration is minor (usually a firmware or
 * configuration mismatch, not a plant problem). 4 (warning) is left for
 * rules that only advise.
 */
export const RULE_SEVERITY: Readonly<Record<BreachRule, Severity>> = {
  fault: 1,
  upperLimit: 2,
  lowerLimit: 2,
  enum: 3,
};
