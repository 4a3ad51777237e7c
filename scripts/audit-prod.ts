/**
 * `pnpm audit:prod`: `pnpm audit --prod` for CI. Fails (exit 1) on any high or critical advisory of a production
 * dependency not explained in README ("Security advisories"), listing each; passes on low and moderate ones,
 * printing them. When the advisory service cannot be reached (an offline or proxied registry answers 405 or
 * nothing), it says so and exits 2, so CI can tell "not checked" from "checked, clean".
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

interface Advisory {
  module_name: string;
  severity: string;
  title: string;
  url: string;
  github_advisory_id?: string;
}

const run = spawnSync("npx", ["--yes", "pnpm@10.34.8", "audit", "--prod", "--json"], { encoding: "utf8" });
let report: { error?: { code: string; message: string }; advisories?: Record<string, Advisory> };
try {
  report = JSON.parse(run.stdout) as typeof report;
} catch {
  console.error(`pnpm audit gave no report: ${(run.stderr || run.stdout).trim().split("\n").at(-1) ?? ""}`);
  process.exit(2);
}
if (report.error) {
  console.error(`advisory service not reachable, nothing checked: ${report.error.code}: ${report.error.message}`);
  process.exit(2);
}
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const advisories = Object.values(report.advisories ?? {});
const serious = advisories.filter((a) => a.severity === "high" || a.severity === "critical");
const unexplained = serious.filter((a) => !readme.includes(a.github_advisory_id ?? a.url));
for (const a of advisories) console.log(`${a.severity.padEnd(8)} ${a.module_name}: ${a.title} ${a.url}`);
console.log(`${advisories.length} advisories, ${serious.length} high or critical, ${unexplained.length} unexplained`);
process.exit(unexplained.length ? 1 : 0);
