import { z } from "zod";

/** Deepest nesting of arrays and objects a JSON member of a body may have (`{"a":[1]}` is 2 deep). */
export const MAX_JSON_DEPTH = 32;

/**
 * How deep arrays and objects nest in `value` (a parsed JSON value; scalars are 0 deep), counted only up to
 * `limit + 1`: it walks with its own stack, never recursing on the input's depth, and stops at the first branch
 * past `limit`. JSON.stringify recurses (a value some thousands deep overflows the call stack, or not, with the stack
 * left at the time): every JSON member is checked here first.
 */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (here > limit) return here;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, here]);
  }
  return deepest;
}

/**
 * The JSON text of `value`, or an issue on `ctx` (FORM_INVALID naming the member) and z.NEVER when it nests deeper
 * than MAX_JSON_DEPTH or is longer than `maxChars`. The text is only made once the depth is known to be bounded.
 */
export function boundedJsonText(value: unknown, ctx: z.RefinementCtx, maxChars: number): string {
  if (jsonDepth(value) > MAX_JSON_DEPTH) {
    ctx.addIssue({ code: "custom", message: `at most ${MAX_JSON_DEPTH} levels of nested arrays and objects` });
    return z.NEVER;
  }
  const text = JSON.stringify(value);
  if (text.length > maxChars) {
    ctx.addIssue({ code: "custom", message: `at most ${maxChars} characters of JSON` });
    return z.NEVER;
  }
  return text;
}
