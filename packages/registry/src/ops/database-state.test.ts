import { beforeEach, describe, expect, it } from "vitest";
import type { Engine } from "../store/store.js";
import { databaseFault, DatabaseState, RECOVERY_QUIET_MS, type DatabaseStateChange } from "./database-state.js";
import { databaseErrorLog } from "./registry-metrics.js";

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe("the database state", () => {
  let seen: DatabaseStateChange[];
  let states: Map<Engine, DatabaseState>;
  beforeEach(() => {
    seen = [];
    states = new Map();
  });
  /** One store per engine, as in a central node. */
  const noteStatement = (engine: Engine, sql: string, error?: unknown, now?: number) => {
    if (!states.has(engine)) states.set(engine, new DatabaseState(engine, (c) => seen.push(c)));
    states.get(engine)!.note(sql, error, now);
  };

  it("reports a lost connection once however many statements fail, and its end once statements succeed again", () => {
    const t = 1_000_000;
    noteStatement("postgres", "select 1", coded("57P01", "terminating connection due to administrator command"), t);
    noteStatement("postgres", "select 1", undefined, t + 10);
    noteStatement("postgres", "insert into x", new Error("Connection terminated unexpectedly"), t + 20);
    noteStatement("postgres", "select 1", undefined, t + 20 + RECOVERY_QUIET_MS);
    noteStatement("postgres", "select 1", undefined, t + 30 + RECOVERY_QUIET_MS);
    expect(seen.map((c) => c.state)).toEqual(["down", "up"]);
    expect(seen[0]).toMatchObject({ engine: "postgres", fault: "connection lost" });
  });

  it("keeps a full disk down through successful reads until a write succeeds", () => {
    const t = 2_000_000;
    noteStatement("sqlite", "insert into device_events", coded("SQLITE_FULL", "database or disk is full"), t);
    noteStatement("sqlite", "select * from devices", undefined, t + RECOVERY_QUIET_MS);
    expect(seen.map((c) => c.state)).toEqual(["down"]);
    noteStatement("sqlite", "commit", undefined, t + RECOVERY_QUIET_MS);
    expect(seen.map((c) => c.state)).toEqual(["down", "up"]);
    expect(seen[0]).toMatchObject({ fault: "disk full" });
  });

  it("keeps each store's state apart: a fault of one store's database is reported though another's is down", () => {
    const one: DatabaseStateChange[] = [];
    const other: DatabaseStateChange[] = [];
    const logOne = databaseErrorLog("sqlite", (c) => one.push(c));
    const logOther = databaseErrorLog("sqlite", (c) => other.push(c));
    const full = coded("SQLITE_FULL", "database or disk is full");
    logOne({ level: "error", error: full, query: { sql: "insert into device_events" } });
    logOther({ level: "error", error: full, query: { sql: "insert into device_events" } });
    expect([one.map((c) => c.state), other.map((c) => c.state)]).toEqual([["down"], ["down"]]);
  });

  it("ignores statements that were wrong rather than the database", () => {
    noteStatement("sqlite", "insert", coded("SQLITE_CONSTRAINT_UNIQUE"));
    noteStatement("postgres", "insert", coded("23505"));
    noteStatement("postgres", "select", coded("42601", "syntax error"));
    expect(seen).toEqual([]);
    expect(databaseFault(coded("ECONNREFUSED"))).toBe("connection lost");
    expect(databaseFault(coded("SQLITE_IOERR_WRITE"))).toBe("unavailable");
  });
});
