import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe("generated code", () => {
  it("is exactly what buf generate makes from the .proto files", () => {
    const out = mkdtempSync(join(tmpdir(), "proto-gen-"));
    try {
      const template = readFileSync(join(packageDir, "buf.gen.yaml"), "utf8").replace("out: src/gen", `out: ${out}`);
      const templatePath = join(out, "..", `buf.gen.${process.pid}.yaml`);
      writeFileSync(templatePath, template);
      execFileSync(join(packageDir, "node_modules/.bin/buf"), ["generate", "--template", templatePath], {
        cwd: packageDir,
        env: { ...process.env, PATH: `${join(packageDir, "node_modules/.bin")}:${process.env.PATH}` },
      });
      rmSync(templatePath);
      const committedDir = join(packageDir, "src/gen");
      const committed = listFiles(committedDir)
        .map((f) => relative(committedDir, f))
        .sort();
      const fresh = listFiles(out)
        .map((f) => relative(out, f))
        .sort();
      expect(fresh).toEqual(committed);
      expect(fresh.length).toBeGreaterThan(0);
      for (const f of fresh) {
        expect(readFileSync(join(out, f), "utf8"), f).toBe(readFileSync(join(committedDir, f), "utf8"));
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
