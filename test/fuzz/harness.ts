/**
 * The fuzz harness: a target starts a session (an adapter on a fake registry, an API on a fresh store, or nothing
 * for a pure codec), names the arbitrary of one case and feeds each case to its system. The harness runs a seeded,
 * bounded number of cases (the test suite) or a large one (`pnpm fuzz`), checks every `aliveEvery` cases that a
 * well-behaved device still works, and measures the heap (after a forced GC) before and after.
 */
import v8 from "node:v8";
import vm from "node:vm";
import fc from "fast-check";

/** One running system under fuzzing. */
export interface FuzzSession<T> {
  /** Generates one case: valid input, mutated (see {@link mutatedBytes}) or plain random. */
  readonly arbitrary: fc.Arbitrary<T>;
  /** Feeds one case; throws (or rejects) when the system broke a promise (threw, crashed, answered 500). */
  run(input: T): void | Promise<void>;
  /** Proves a well-behaved device (or caller) is still served; throws if not. */
  alive?(): Promise<void>;
  /** Drops what the session recorded of past cases (a fake registry's uplink log), so the heap measures the system. */
  forget?(): void;
  stop(): Promise<void>;
}

/** A fuzz target: one codec family or protocol handler. */
export interface FuzzTarget<T = unknown> {
  readonly name: string;
  /** What is fuzzed and what must hold, one line. */
  readonly description: string;
  start(): Promise<FuzzSession<T>>;
}

/** What one run of a target showed. */
export interface FuzzReport {
  readonly target: string;
  readonly cases: number;
  readonly seconds: number;
  readonly casesPerSecond: number;
  /** The first failure, shrunk, with its counterexample and seed; undefined when every case held. */
  readonly failure?: string;
  /** Heap used after a forced GC, MiB, with the session started and before the first case. */
  readonly heapBeforeMiB: number;
  /** Heap used after a forced GC, MiB, after the last case (session records dropped). */
  readonly heapAfterMiB: number;
  /** Heap used after a forced GC, MiB, at each live check: flat when bounded, rising with a leak. */
  readonly heapTraceMiB: readonly number[];
}

/** Options of one run: `numRuns` cases from `seed`; a live check every `aliveEvery` cases and at the end. */
export interface FuzzOptions {
  readonly numRuns: number;
  readonly seed?: number;
  readonly aliveEvery?: number;
  /** Measure the heap (a forced GC) at every live check too. */
  readonly traceHeap?: boolean;
  /**
   * Called about every `progressEveryMs` (default: never) with the figures so far, the heap measured after a forced
   * GC: a long run that is stopped before its end still leaves them.
   */
  readonly onProgress?: (progress: FuzzProgress) => void;
  readonly progressEveryMs?: number;
}

/** Figures of a run under way. */
export interface FuzzProgress {
  readonly target: string;
  readonly cases: number;
  readonly seconds: number;
  readonly casesPerSecond: number;
  readonly heapMiB: number;
}

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

/** Heap used after a full collection, MiB. */
export function heapMiB(): number {
  gc();
  gc();
  return Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10;
}

/** Runs `numRuns` cases of `target`, checking the live device along the way; never throws for a failing case. */
export async function fuzz<T>(target: FuzzTarget<T>, options: FuzzOptions): Promise<FuzzReport> {
  const session = await target.start();
  const aliveEvery = options.aliveEvery ?? 1000;
  let cases = 0;
  // Errors thrown from callbacks or rejected without a handler would crash a process: each fails the case it follows.
  const escapes: unknown[] = [];
  const escaped = (e: unknown) => escapes.push(e);
  process.on("uncaughtException", escaped);
  process.on("unhandledRejection", escaped);
  try {
    await session.alive?.();
    const heapBeforeMiB = heapMiB();
    const heapTraceMiB: number[] = [];
    const started = performance.now();
    let lastProgress = started;
    const progress = () => {
      const now = performance.now();
      if (!options.onProgress || now - lastProgress < (options.progressEveryMs ?? Infinity)) return;
      lastProgress = now;
      const seconds = (now - started) / 1000;
      const casesPerSecond = Math.round(cases / seconds);
      options.onProgress({ target: target.name, cases, seconds, casesPerSecond, heapMiB: heapMiB() });
    };
    const property = fc.asyncProperty(session.arbitrary, async (input) => {
      await session.run(input);
      const thrown = escapes.shift();
      escapes.length = 0;
      if (thrown !== undefined)
        throw new Error(`an error escaped the system (a process crash): ${describe(thrown)}`, { cause: thrown });
      if (++cases % aliveEvery === 0) {
        session.forget?.();
        await session.alive?.();
        if (options.traceHeap) heapTraceMiB.push(heapMiB());
      }
      progress();
    });
    const seed = options.seed ?? Date.now();
    let result: fc.RunDetails<[T]>;
    try {
      result = await fc.check(property, { numRuns: options.numRuns, seed });
    } catch (e) {
      // A generator that throws is the target's own bug; reported like a failure so a long run still ends with figures.
      throw new Error(`target ${target.name} could not generate a case (seed ${seed}): ${describe(e)}`, { cause: e });
    }
    let failure = result.failed
      ? `${fc.defaultReportMessage(result)}\nError: ${String(result.errorInstance)}`
      : undefined;
    if (!failure) {
      try {
        await session.alive?.();
      } catch (e) {
        failure = `the live device stopped working: ${String(e)}`;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    session.forget?.();
    const heapAfterMiB = heapMiB();
    return {
      target: target.name,
      cases,
      seconds,
      casesPerSecond: Math.round(cases / seconds),
      ...(failure ? { failure } : {}),
      heapBeforeMiB,
      heapAfterMiB,
      heapTraceMiB,
    };
  } finally {
    await session.stop();
    process.off("uncaughtException", escaped);
    process.off("unhandledRejection", escaped);
  }
}

/** One change to a valid input; positions are taken modulo the input's length. */
export type Mutation =
  | { readonly op: "flip"; readonly at: number; readonly bit: number }
  | { readonly op: "set"; readonly at: number; readonly value: number }
  | { readonly op: "truncate"; readonly at: number }
  | { readonly op: "extend"; readonly bytes: Uint8Array }
  | { readonly op: "insert"; readonly at: number; readonly bytes: Uint8Array }
  | { readonly op: "swap"; readonly a: number; readonly b: number; readonly length: number };

/** Byte values that often sit on a boundary of a length or a type field. */
const EDGE_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff];

/** Any one {@link Mutation}. */
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("flip" as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    op: fc.constant("set" as const),
    at: fc.nat(),
    value: fc.oneof(fc.constantFrom(...EDGE_BYTES), fc.integer({ min: 0, max: 255 })),
  }),
  fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("extend" as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ op: fc.constant("swap" as const), a: fc.nat(), b: fc.nat(), length: fc.integer({ min: 1, max: 8 }) }),
);

/** Applies `mutations` in order to a copy of `bytes`. */
export function applyMutations(bytes: Uint8Array, mutations: readonly Mutation[]): Uint8Array {
  let b: Uint8Array = Uint8Array.from(bytes);
  for (const m of mutations) {
    const n = b.length;
    switch (m.op) {
      case "flip":
        if (n) b[m.at % n]! ^= 1 << m.bit;
        break;
      case "set":
        if (n) b[m.at % n] = m.value;
        break;
      case "truncate":
        b = b.slice(0, n ? m.at % n : 0);
        break;
      case "extend":
        b = concat(b, m.bytes);
        break;
      case "insert": {
        const at = m.at % (n + 1);
        b = concat(b.subarray(0, at), m.bytes, b.subarray(at));
        break;
      }
      case "swap": {
        if (n < 2) break;
        const length = Math.min(m.length, Math.floor(n / 2));
        const a = m.a % (n - length + 1);
        const c = m.b % (n - length + 1);
        const first = b.slice(a, a + length);
        b.copyWithin(a, c, c + length);
        b.set(first, c);
        break;
      }
    }
  }
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Inputs built from `valid`: mostly a valid input with 1 to `maxMutations` mutations, sometimes the valid input
 * itself, sometimes plain random bytes.
 */
export function mutatedBytes(valid: fc.Arbitrary<Uint8Array>, maxMutations = 4): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    { weight: 1, arbitrary: valid },
    {
      weight: 6,
      arbitrary: fc
        .tuple(valid, fc.array(mutation, { minLength: 1, maxLength: maxMutations }))
        .map(([bytes, ms]) => applyMutations(bytes, ms)),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 96 }) },
  );
}

/** Text inputs built from `valid` the same way, mutated as UTF-8 bytes and decoded back (lossily). */
export function mutatedText(valid: fc.Arbitrary<string>, maxMutations = 4): fc.Arbitrary<string> {
  return mutatedBytes(
    valid.map((s) => new TextEncoder().encode(s)),
    maxMutations,
  ).map((b) => Buffer.from(b).toString("utf8"));
}

/**
 * Calls a codec that promises a result (never a throw) and checks the promise: a thrown error, or an answer that
 * is not `{ ok: true, value }` / `{ ok: false, reason: string }`, is a failure naming `what`.
 */
export function expectResult(what: string, call: () => unknown): void {
  let r: unknown;
  try {
    r = call();
  } catch (e) {
    throw new Error(`${what} threw instead of refusing: ${e instanceof Error ? e.stack : String(e)}`, { cause: e });
  }
  const ok = (r as { ok?: unknown } | undefined)?.ok;
  if (ok === true && "value" in (r as object)) return;
  if (ok === false && typeof (r as { reason?: unknown }).reason === "string") return;
  throw new Error(`${what} answered something that is not a result: ${String(r)}`);
}

/** One change to a JSON object's fields: values swapped between two fields, a field dropped, replaced or added. */
type FieldMutation =
  | { readonly op: "swap"; readonly a: number; readonly b: number }
  | { readonly op: "drop"; readonly at: number }
  | { readonly op: "replace"; readonly at: number; readonly value: unknown }
  | { readonly op: "add"; readonly name: string; readonly value: unknown };

/** Awkward JSON values: wrong types, huge and tiny numbers, long and odd strings. */
export const oddJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.5, "", "0", "-1", "null", [], {}),
  fc.string({ maxLength: 300 }),
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer(),
);

const fieldMutation: fc.Arbitrary<FieldMutation> = fc.oneof(
  fc.record({ op: fc.constant("swap" as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ op: fc.constant("drop" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("replace" as const), at: fc.nat(), value: oddJson }),
  fc.record({ op: fc.constant("add" as const), name: fc.string({ maxLength: 12 }), value: oddJson }),
);

/** Objects built from `valid`: as they are, or with 1 to 3 field mutations (swaps, drops, odd values, extras). */
export function mutatedFields<T extends Record<string, unknown>>(
  valid: fc.Arbitrary<T>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(
    { weight: 1, arbitrary: valid },
    {
      weight: 4,
      arbitrary: fc.tuple(valid, fc.array(fieldMutation, { minLength: 1, maxLength: 3 })).map(([v, ms]) => {
        const o: Record<string, unknown> = { ...v };
        for (const m of ms) {
          const keys = Object.keys(o);
          if (m.op === "add") o[m.name] = m.value;
          else if (!keys.length) continue;
          else if (m.op === "drop") delete o[keys[m.at % keys.length]!];
          else if (m.op === "replace") o[keys[m.at % keys.length]!] = m.value;
          else {
            const a = keys[m.a % keys.length]!;
            const b = keys[m.b % keys.length]!;
            [o[a], o[b]] = [o[b], o[a]];
          }
        }
        return o;
      }),
    },
  );
}

/** An error's stack, or any other thrown value as JSON. */
function describe(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : JSON.stringify(e);
}
