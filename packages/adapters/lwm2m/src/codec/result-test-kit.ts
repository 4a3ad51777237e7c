/** How the codec tests read a Result: the value it must hold, or the reason of the refusal it must be. */
import type { Result } from "./result.js";

/** The value of a Result that must hold one (throws with the refusal's reason otherwise). */
export const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};

/** The reason of a Result that must be a refusal (throws with the value otherwise). */
export const reason = (r: Result<unknown>): string => {
  if (r.ok) throw new Error(`expected a refusal, got ${JSON.stringify(r.value)}`);
  return r.reason;
};
