/** How the codec tests read a Result: the value it must hold, or the reason of the refusal it must be. */
import { expect } from "vitest";

/** The value of a Result that must hold one (throws with the refusal's reason otherwise). */
export const value = <T>(r: { ok: true; value: T } | { ok: false; reason: string }): T => {
  if (!r.ok) throw new Error(`expected a value, got: ${r.reason}`);
  return r.value;
};

/** The reason of a Result that must be a refusal (the test fails otherwise). */
export const reason = (r: { ok: boolean; reason?: string }): string => {
  expect(r.ok).toBe(false);
  return r.reason ?? "";
};
