import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RegistryOutage } from "./registry-outage.js";

/** A logger at debug whose lines land in `lines` (level, msg and fields). */
function captured() {
  const lines: Array<{ level: number; msg: string } & Record<string, unknown>> = [];
  const log = pino({ level: "debug" }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const warnings = () => lines.filter((l) => l.level >= 40).map((l) => l.msg);
  return { log, lines, warnings };
}

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

/** Fails once every `everyMs` for `forMs`, as a reconnect loop does while the registry is away. */
function failFor(o: RegistryOutage, forMs: number, everyMs = 100) {
  for (let t = 0; t < forMs; t += everyMs) {
    o.failed({ reason: "ECONNREFUSED" });
    vi.advanceTimersByTime(everyMs);
  }
}

describe("RegistryOutage", () => {
  it("logs a 95 s outage with 10 attempts a second as one start, three summaries and one recovery", () => {
    const { log, warnings, lines } = captured();
    const o = new RegistryOutage(log);
    o.up({});
    vi.advanceTimersByTime(5_000);
    failFor(o, 95_000);
    o.up({ node: "n1" });
    expect(warnings()).toEqual([
      "registry stream lost; reconnecting",
      "registry still unreachable after 301 attempts, 30s",
      "registry still unreachable after 601 attempts, 60s",
      "registry still unreachable after 901 attempts, 90s",
      "registry link up again",
    ]);
    expect(lines.at(-1)).toMatchObject({ node: "n1", attempts: 950, downForMs: 95_000 });
    // Each attempt is still there for whoever runs at debug.
    expect(lines.filter((l) => l.msg === "registry not reachable; retrying").length).toBe(949);
  });

  it("says 'not reachable' when the link was never up, and 'link up' at info the first time it comes", () => {
    const { log, lines, warnings } = captured();
    const o = new RegistryOutage(log);
    failFor(o, 1_000);
    o.up({});
    expect(warnings()).toEqual(["registry not reachable; retrying", "registry link up again"]);
    const quiet = new RegistryOutage(log);
    lines.length = 0;
    quiet.up({});
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[30, "registry link up"]]);
  });

  it("counts a link that drops within 2 s of each Hello as one outage, and logs its end once it stays up", () => {
    const { log, warnings, lines } = captured();
    const onStable = vi.fn();
    const o = new RegistryOutage(log, { onStable });
    o.up({});
    vi.advanceTimersByTime(3_000);
    expect(onStable).toHaveBeenCalledTimes(1);
    failFor(o, 1_000);
    for (let i = 0; i < 40; i++) {
      o.up({}); // HelloAck, then the node ends the stream (its database is down)
      vi.advanceTimersByTime(50);
      o.failed({ reason: "uplink store failed" });
      vi.advanceTimersByTime(950);
    }
    expect(onStable).toHaveBeenCalledTimes(1); // a flapping link never resets the backoff
    o.up({ node: "n2" });
    vi.advanceTimersByTime(2_000);
    expect(onStable).toHaveBeenCalledTimes(2);
    expect(warnings()).toEqual([
      "registry stream lost; reconnecting",
      "registry link up again", // the first Hello: not yet known to be a flap
      "registry still unreachable after 40 attempts, 30s",
      "registry link up again",
    ]);
    expect(lines.at(-1)).toMatchObject({ node: "n2", attempts: 50, downForMs: 41_000 });
  });

  it("starts a new outage when a link that stayed up drops", () => {
    const { log, warnings } = captured();
    const o = new RegistryOutage(log);
    for (let i = 0; i < 3; i++) {
      o.up({});
      vi.advanceTimersByTime(60_000);
      failFor(o, 500);
    }
    o.up({});
    expect(warnings()).toEqual([
      "registry stream lost; reconnecting",
      "registry link up again",
      "registry stream lost; reconnecting",
      "registry link up again",
      "registry stream lost; reconnecting",
      "registry link up again",
    ]);
  });
});
