/**
 * Test support (not a test file): opens stores on each engine in throw-away
 * places and removes them afterwards, so one suite runs on both engines.
 *
 * PostgreSQL: the server at IOT_TEST_DATABASE_URL, else postgres://127.0.0.1:5432/test
 * as root or postgres (trust auth). Each test file run picks a random prefix
 * and every store it opens gets its own schema `t_<prefix>_<n>`; `cleanup()`
 * drops them all. With CI=true the PostgreSQL tests always run (no server is
 * a failure); otherwise they are skipped with a console warning.
 */
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { registryStoreHooks } from "../open-registry-store.js";
import { openStore } from "./open-store.js";
import { describeDatabase } from "./postgres.js";
import { SQLITE_FILE_NAME } from "./sqlite.js";
import type { Engine, Store, StoreOptions } from "./store.js";

/** Where a store lives: a SQLite data dir or a PostgreSQL schema. */
export type Place = string;

/** Opens stores on one engine; every place it made is removed by `cleanup`. */
export interface EngineUnderTest {
  name: Engine;
  /** The PostgreSQL URL in use (undefined for SQLite). */
  url: string | undefined;
  /**
   * A store in a new place, or in `place` again when given, opened as the registry opens it (its hooks:
   * registryStoreHooks); `options.hooks` replace the registry's one by one.
   */
  open(options?: Partial<StoreOptions>, place?: Place): Promise<{ store: Store; place: Place }>;
  /** Closes every store opened since the last call. */
  closeAll(): Promise<void>;
  /** Closes stores, drops schemas / deletes directories. */
  cleanup(): Promise<void>;
}

const CANDIDATE_URLS = process.env.IOT_TEST_DATABASE_URL
  ? [process.env.IOT_TEST_DATABASE_URL]
  : ["postgres://root@127.0.0.1:5432/test", "postgres://postgres@127.0.0.1:5432/test"];

async function probePostgres(): Promise<{ url?: string; error?: string }> {
  const errors: string[] = [];
  for (const url of CANDIDATE_URLS) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
    try {
      await client.connect();
      await client.query("select 1");
      return { url };
    } catch (error) {
      errors.push((error as Error).message || String(error));
    } finally {
      await client.end().catch(() => {});
    }
  }
  return { error: errors.join("; ") };
}

const probe = await probePostgres();
const mustRunPostgres = process.env.CI === "true";
if (probe.url === undefined && !mustRunPostgres) {
  const tried = CANDIDATE_URLS.map(describeDatabase).join(", ");
  console.warn(
    `PostgreSQL store tests SKIPPED: no server answers (tried ${tried}: ${probe.error}). Set CI=true to make this a failure.`,
  );
}

function harness(name: Engine, url: string | undefined): EngineUnderTest {
  const prefix = `t_${randomBytes(4).toString("hex")}`;
  let places: Place[] = [];
  let made = 0;
  let open: Store[] = [];
  let sqliteTemplate: Promise<string> | undefined;
  /**
   * A SQLite data dir migrated once per test process: a new place starts as a copy of its database, because
   * migrating every test's store anew (a synced transaction per migration) was most of a store test's time.
   */
  const migratedSqlite = () =>
    (sqliteTemplate ??= (async () => {
      const dir = mkdtempSync(join(tmpdir(), "iot-store-template-"));
      process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
      const store = await openStore({ dataDir: dir });
      await store.close(); // the last connection's close checkpoints the WAL into the database file
      return join(dir, SQLITE_FILE_NAME);
    })());
  const newPlace = async (): Promise<Place> => {
    if (name === "postgres") {
      const place = `${prefix}_${made++}`;
      places.push(place);
      return place;
    }
    const template = await migratedSqlite();
    const place = mkdtempSync(join(tmpdir(), "iot-store-"));
    places.push(place);
    copyFileSync(template, join(place, SQLITE_FILE_NAME));
    return place;
  };
  const self: EngineUnderTest = {
    name,
    url,
    async open(options = {}, given?: Place) {
      const place = given ?? (await newPlace());
      const hooks = { ...registryStoreHooks(), ...options.hooks };
      const store = await openStore(
        name === "postgres"
          ? { dataDir: "", ...options, hooks, databaseUrl: url ?? CANDIDATE_URLS[0], pgSchema: place }
          : { ...options, hooks, dataDir: place },
      );
      open.push(store);
      return { store, place };
    },
    async closeAll() {
      const closing = open;
      open = [];
      await Promise.allSettled(closing.map((s) => s.close()));
    },
    async cleanup() {
      await self.closeAll();
      const gone = places;
      places = []; // the harness may serve another test file in the same process
      if (name === "sqlite") {
        for (const dir of gone) rmSync(dir, { recursive: true, force: true });
      } else if (url !== undefined && gone.length > 0) {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          for (const schema of gone) await client.query(`drop schema if exists ${schema} cascade`);
        } finally {
          await client.end();
        }
      }
    },
  };
  return self;
}

/** The engines to test here: SQLite always, PostgreSQL when reachable or under CI. */
export const engines: EngineUnderTest[] = [
  harness("sqlite", undefined),
  ...(probe.url !== undefined || mustRunPostgres ? [harness("postgres", probe.url)] : []),
];

/** The PostgreSQL harness when its tests run here, else undefined. */
export const postgresEngine: EngineUnderTest | undefined = engines.find((e) => e.name === "postgres");

/** A PostgreSQL database made for one test run, for central nodes started as processes (which take a URL). */
export interface TestDatabase {
  /** `postgres://…/<fresh database>`. */
  readonly url: string;
  /** Drops the database, ending whatever connections are left to it. */
  drop(): Promise<void>;
}

/**
 * Creates an empty database on the test server, so several central nodes can share it without seeing any other
 * run's tables, LISTEN channels or advisory locks (schemas, as `open` makes, would share the last two).
 * @throws Error when no PostgreSQL server answers.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const url = postgresEngine?.url;
  if (url === undefined) throw new Error(`no PostgreSQL server answers: ${probe.error ?? "not probed"}`);
  return createDatabaseOn(url);
}

/** A fresh database on the server of `serverUrl` (an `iot_run_` name), dropped (with force) by `drop`. */
export async function createDatabaseOn(serverUrl: string): Promise<TestDatabase> {
  const name = `iot_run_${randomBytes(5).toString("hex")}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const own = new URL(serverUrl);
  own.pathname = `/${name}`;
  return { url: own.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
