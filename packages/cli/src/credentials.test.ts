import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { credentialsPath, loadCredentials, saveCredentials } from "./credentials.js";

describe("credentials", () => {
  it("are kept in a file only the user can read, in a folder only the user can enter", () => {
    const path = join(mkdtempSync(join(tmpdir(), "cli-")), "nested", "credentials.json");
    writeFileSync(join(path, "..", "..", "unrelated"), "");
    saveCredentials(path, { url: "http://h:1", token: "t" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    expect(loadCredentials(path)).toEqual({ url: "http://h:1", token: "t" });
  });

  it("tighten an existing file's mode when saving again", () => {
    const path = join(mkdtempSync(join(tmpdir(), "cli-")), "credentials.json");
    writeFileSync(path, "{}", { mode: 0o644 });
    saveCredentials(path, { url: "u", token: "t" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("are read from IOT_CLI_CREDENTIALS when set, and none are found in a missing or broken file", () => {
    expect(credentialsPath({ IOT_CLI_CREDENTIALS: "/x/c.json" })).toBe("/x/c.json");
    expect(credentialsPath({})).toMatch(/\.config\/iot-fleet\/credentials\.json$/);
    const dir = mkdtempSync(join(tmpdir(), "cli-"));
    expect(loadCredentials(join(dir, "none.json"))).toBeUndefined();
    writeFileSync(join(dir, "bad.json"), "{");
    expect(loadCredentials(join(dir, "bad.json"))).toBeUndefined();
  });
});
