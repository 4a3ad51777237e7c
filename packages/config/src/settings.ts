/** One configuration setting: its environment variable, default and parser. */
export interface Setting<T> {
  /** Environment variable name, e.g. `IOT_API_PORT`. */
  readonly env: string;
  /** Used when the variable is unset or empty; `undefined` means "not set". */
  readonly fallback: T;
  /** One sentence for the README's configuration table, with the unit. */
  readonly doc: string;
  /** Turns the raw text into a value, or throws an Error whose message says what is expected. */
  parse(raw: string): T;
  /** The value may hold a password: an error names the variable without echoing it. */
  readonly secret?: boolean;
}

/** A setting that failed to parse; its message is one line naming the variable. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export function text(env: string, fallback: string, doc: string): Setting<string>;
export function text(env: string, fallback: undefined, doc: string): Setting<string | undefined>;
/** A free-form string setting. */
export function text(env: string, fallback: string | undefined, doc: string): Setting<string | undefined> {
  return { env, fallback, doc, parse: (raw) => raw };
}

/**
 * A comma-separated list of non-empty items (spaces around items are dropped), e.g. several addresses to try in
 * order; an empty item (`a,,b`) is refused so a typo is not silently ignored.
 */
export function list(env: string, fallback: readonly string[], doc: string): Setting<readonly string[]> {
  return {
    env,
    fallback,
    doc,
    parse(raw) {
      const items = raw.split(",").map((x) => x.trim());
      if (items.some((x) => x === "")) throw new Error("must be a comma-separated list without empty items");
      return Object.freeze(items);
    },
  };
}

/** An integer within [min, max]. */
export function integer(env: string, fallback: number, doc: string, min: number, max: number): Setting<number> {
  return {
    env,
    fallback,
    doc,
    parse(raw) {
      if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be a whole number from ${min} to ${max}`);
      const n = Number(raw.trim());
      if (n < min || n > max) throw new Error(`must be a whole number from ${min} to ${max}`);
      return n;
    },
  };
}

/** A TCP/UDP port; 0 asks the OS for a free one (useful in tests). */
export function port(env: string, fallback: number, doc: string): Setting<number> {
  return integer(env, fallback, doc, 0, 65535);
}

/** One of a closed list of words or numbers, compared as text. */
export function oneOf<const T extends string>(
  env: string,
  fallback: T,
  doc: string,
  choices: readonly T[],
): Setting<T> {
  return {
    env,
    fallback,
    doc,
    parse(raw) {
      const v = raw.trim() as T;
      if (!choices.includes(v)) throw new Error(`must be one of ${choices.join(", ")}`);
      return v;
    },
  };
}

/** A yes/no switch: true/false, 1/0, yes/no. */
export function flag(env: string, fallback: boolean, doc: string): Setting<boolean> {
  return {
    env,
    fallback,
    doc,
    parse(raw) {
      const v = raw.trim().toLowerCase();
      if (["1", "true", "yes", "on"].includes(v)) return true;
      if (["0", "false", "no", "off"].includes(v)) return false;
      throw new Error("must be true or false");
    },
  };
}

type SettingValue<S> = S extends Setting<infer T> ? T : never;
/** The typed object a group of settings reads into. */
export type ConfigOf<S extends Record<string, Setting<unknown>>> = { readonly [K in keyof S]: SettingValue<S[K]> };

/**
 * Reads every setting once from `env`. Throws a ConfigError naming the first
 * bad variable; the process is meant to print it and exit.
 */
export function readConfig<S extends Record<string, Setting<unknown>>>(
  settings: S,
  env: Record<string, string | undefined>,
): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    const raw = env[setting.env];
    if (raw === undefined || raw === "") {
      out[key] = setting.fallback;
      continue;
    }
    try {
      out[key] = setting.parse(raw);
    } catch (err) {
      const shown = setting.secret ? setting.env : `${setting.env}=${JSON.stringify(raw)}`;
      throw new ConfigError(`${shown}: ${(err as Error).message}`);
    }
  }
  return Object.freeze(out) as ConfigOf<S>;
}

/** Rows for documentation: variable, default, meaning. */
export function describeSettings(settings: Record<string, Setting<unknown>>): Array<[string, string, string]> {
  return Object.values(settings).map((s) => [
    s.env,
    s.fallback === undefined
      ? "(unset)"
      : typeof s.fallback === "string"
        ? s.fallback
        : Array.isArray(s.fallback)
          ? s.fallback.join(",")
          : JSON.stringify(s.fallback),
    s.doc,
  ]);
}
