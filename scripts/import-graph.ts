/**
 * `pnpm deps:graph [--root <checkout>] [--label after]`: draws who imports whom, with dependency-cruiser, as Mermaid
 * graphs in docs/architecture.md between `<!-- import-graph:<label> -->` and `<!-- /import-graph:<label> -->`.
 *
 * Two drawings per label: the packages (each node one workspace package), and the folders of the registry's `src`
 * (each node one folder), with the count of hand-written files over the 400-line rule. `--root` points at another
 * checkout (an older commit, installed) so a "before" drawing is made by the same tool and rules as the "after" one.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const root = resolve(flag("--root") ?? here);
const label = flag("--label") ?? "after";

/** Folders dependency-cruiser reads; generated code and tests are left out (they import everything). */
const SOURCES = ["packages"];
const EXCLUDE = "(node_modules|/gen/|api-types\\.ts|\\.test\\.ts$|test-support|/testing|/dist/)";

/** One Mermaid graph, collapsed at `collapse` (a regular expression naming the node each file belongs to). */
function mermaid(collapse: string, includeOnly: string): string {
  const bin = join(here, "node_modules", ".bin", "depcruise");
  const run = spawnSync(
    bin,
    [
      "--config",
      join(here, ".dependency-cruiser.mjs"),
      "--include-only",
      includeOnly,
      "--exclude",
      EXCLUDE,
      "--collapse",
      collapse,
      "--output-type",
      "mermaid",
      ...SOURCES,
    ],
    { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`depcruise failed: ${run.stderr}`);
  return run.stdout.trim();
}

/** Hand-written TypeScript files over 400 lines (tests included: they are read as much as code). */
function longFiles(): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      if (name === "node_modules" || name === "gen" || name === "dist") continue;
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && !name.endsWith(".d.ts") && name !== "api-types.ts") {
        const lines = readFileSync(path, "utf8").split("\n").length - 1;
        if (lines > 400) found.push(`${relative(root, path)} (${lines})`);
      }
    }
  };
  for (const d of ["packages", "bench", "test", "scripts"]) walk(join(root, d));
  return found.sort();
}

const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).stdout.trim();
const packages = mermaid("^packages/(adapters/)?[^/]+", "^packages/");
const folders = mermaid("^packages/registry/src/[^/]+", "^packages/registry/src/");
const long = longFiles();
const block = [
  `<!-- import-graph:${label} -->`,
  `Drawn by \`pnpm deps:graph\` from commit ${commit}.`,
  "",
  "Packages (an arrow is an import):",
  "",
  "```mermaid",
  packages,
  "```",
  "",
  "Folders of the registry (where the layering matters most: `store/` at the bottom):",
  "",
  "```mermaid",
  folders,
  "```",
  "",
  long.length === 0
    ? "No hand-written file is over 400 lines."
    : `Hand-written files over 400 lines (${long.length}): ${long.map((f) => `\`${f}\``).join(", ")}.`,
  `<!-- /import-graph:${label} -->`,
].join("\n");

const doc = join(here, "docs", "architecture.md");
const text = readFileSync(doc, "utf8");
const pattern = new RegExp(`<!-- import-graph:${label} -->[\\s\\S]*?<!-- /import-graph:${label} -->`);
if (!pattern.test(text)) throw new Error(`docs/architecture.md has no import-graph:${label} markers`);
writeFileSync(
  doc,
  text.replace(pattern, () => block),
);
console.log(`docs/architecture.md: ${label} drawing from ${commit}, ${long.length} files over 400 lines`);
