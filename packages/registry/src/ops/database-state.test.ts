import { afterEach, describe, expect, it } from "vitest";
import {
  databaseFault,
  noteStatement,
  onDatabaseState,
  RECOVERY_QUIET_MS,
  type DatabaseStateChange,
} from "./database-state.js";

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });

describe("the database state", () => {
  const seen: DatabaseStateChange[] = [];
  let stop = onDatabaseState((c) => seen.push(c));
  afterEach(() => {
    stop();
    seen.length = 0;
    stop = onDatabaseState((c) => seen.push(c));
  });

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

  it("ignores statements that were wrong rather than the database", () => {
    noteStatement("sqlite", "insert", coded("SQLITE_CONSTRAINT_UNIQUE"));
    noteStatement("postgres", "insert", coded("23505"));
    noteStatement("postgres", "select", coded("42601", "syntax error"));
    expect(seen).toEqual([]);
    expect(databaseFault(coded("ECONNREFUSED"))).toBe("connection lost");
    expect(databaseFault(coded("SQLITE_IOERR_WRITE"))).toBe("unavailable");
  });
});
