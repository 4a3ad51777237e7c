import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StartupError } from "@iot/config";
import { createPrivateFile, secureDataDir } from "./secure-data-dir.js";

const root = mkdtempSync(join(tmpdir(), "secure-data-dir-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(root, `case-${++n}`);
const mode = (path: string) => statSync(path).mode & 0o7777;

describe("secureDataDir", () => {
  it("creates a missing data folder, and its missing parents, readable by its owner only", () => {
    const dir = join(fresh(), "nested", "data");
    expect(secureDataDir(dir)).toEqual([]);
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, ".."))).toBe(0o700);
  });

  it("tightens a loose folder and every loose file in it, answering each path with its old and new mode", () => {
    const dir = fresh();
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    for (const [name, m] of [
      ["iot.db", 0o644],
      ["iot.db-wal", 0o664],
      ["iot.db-shm", 0o640],
      ["ca.key", 0o604],
      ["private", 0o600],
    ] as const) {
      writeFileSync(join(dir, name), "x");
      chmodSync(join(dir, name), m);
    }
    const tightened = secureDataDir(dir);
    expect(tightened.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: dir, was: "0755", now: "0700" },
      { path: join(dir, "ca.key"), was: "0604", now: "0600" },
      { path: join(dir, "iot.db"), was: "0644", now: "0600" },
      { path: join(dir, "iot.db-shm"), was: "0640", now: "0600" },
      { path: join(dir, "iot.db-wal"), was: "0664", now: "0600" },
    ]);
    for (const name of ["iot.db", "iot.db-wal", "iot.db-shm", "ca.key", "private"])
      expect(mode(join(dir, name)), name).toBe(0o600);
    expect(mode(dir)).toBe(0o700);
    expect(secureDataDir(dir)).toEqual([]);
  });

  it("leaves the target of a symbolic link in the folder alone", () => {
    const dir = fresh();
    const outside = join(root, `outside-${n}`);
    writeFileSync(outside, "x");
    chmodSync(outside, 0o644);
    mkdirSync(dir, { mode: 0o700 });
    symlinkSync(outside, join(dir, "link"));
    expect(secureDataDir(dir)).toEqual([]);
    expect(mode(outside)).toBe(0o644);
  });

  it("refuses a shared folder with the sticky bit instead of making it private", () => {
    const dir = fresh();
    mkdirSync(dir);
    chmodSync(dir, 0o1777);
    expect(() => secureDataDir(dir)).toThrow(StartupError);
    expect(() => secureDataDir(dir)).toThrow(/is a shared folder \(sticky bit, as \/tmp\)/);
    expect(mode(dir)).toBe(0o1777);
  });

  it("refuses a data folder that is a file, naming the setting", () => {
    const file = fresh();
    writeFileSync(file, "x");
    expect(() => secureDataDir(file)).toThrow(new RegExp(`^IOT_DATA_DIR=${file}: cannot create the folder`));
  });
});

describe("createPrivateFile", () => {
  it("creates a missing file with mode 0600 and keeps an existing one's content", () => {
    const dir = fresh();
    mkdirSync(dir);
    createPrivateFile(join(dir, "iot.db"));
    expect(mode(join(dir, "iot.db"))).toBe(0o600);
    writeFileSync(join(dir, "kept"), "content");
    createPrivateFile(join(dir, "kept"));
    expect(statSync(join(dir, "kept")).size).toBe(7);
  });
});
