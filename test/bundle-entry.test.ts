import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLE_DIR, bundleEntry } from "../scripts/bundle-entry.js";

const root = join(import.meta.dirname, "..");
const dir = join(import.meta.dirname, "artifacts", `bundle-${process.pid}`);
const entry = relative(root, join(dir, "main.ts"));
const dep = join(dir, "dep.ts");

/** dep.ts with `value` (4 characters, so every version has the same size); the throw is on line 5. */
function writeDep(value: string): void {
  writeFileSync(
    dep,
    [
      `export const value: string = "${value}";`,
      "export const here: string = import.meta.url;",
      "export const folder: string = import.meta.dirname;",
      "export function fail(): never {",
      '  throw new Error("failed on purpose");',
      "}",
      "",
    ].join("\n"),
  );
}

async function run(script: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, ["--enable-source-maps", script, ...args]).catch(
    (e: { stdout: string; stderr: string }) => e,
  );
}

mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, "main.ts"),
  [
    'import mqttPacket from "mqtt-packet";',
    'import { fail, folder, here, value } from "./dep.js";',
    "const parser: string = typeof mqttPacket.parser;",
    "console.log(JSON.stringify({ value, here, folder, parser }));",
    'if (process.argv[2] === "fail") fail();',
    "",
  ].join("\n"),
);
writeDep("AAAA");
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  for (const name of readdirSync(BUNDLE_DIR))
    if (name.startsWith(`test+artifacts+bundle-${process.pid}+`)) rmSync(join(BUNDLE_DIR, name));
});

describe("a fleet entry point's bundle", () => {
  it("runs each module as its source would: its own import.meta, packages from node_modules, traces at .ts lines", async () => {
    const script = await bundleEntry(entry);
    expect(script.startsWith(join(root, "node_modules", ".cache", "fleet-bundles"))).toBe(true);
    const { stdout, stderr } = await run(script, "fail");
    expect(JSON.parse(stdout)).toEqual({
      value: "AAAA",
      here: pathToFileURL(dep).href,
      folder: dir,
      parser: "function",
    });
    expect(stderr).toContain("failed on purpose");
    expect(stderr).toContain(`${dep}:5`);
  });

  it("is rebuilt when a source it includes changes, even to content of the same size, and reused while none does", async () => {
    const first = await bundleEntry(entry);
    expect(await bundleEntry(entry)).toBe(first);
    writeDep("BBBB");
    const second = await bundleEntry(entry);
    expect(second).not.toBe(first);
    expect(JSON.parse((await run(second)).stdout)).toMatchObject({ value: "BBBB" });
  });

  it("comes out whole from builds that run at once", async () => {
    writeDep("CCCC");
    const scripts = await Promise.all([1, 2, 3, 4].map(() => bundleEntry(entry)));
    for (const script of new Set(scripts)) {
      expect(existsSync(`${script}.map`)).toBe(true);
      expect(JSON.parse((await run(script)).stdout)).toMatchObject({ value: "CCCC" });
    }
  });
});
