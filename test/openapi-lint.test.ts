/**
 * Our OpenAPI document as users get it (`/api/v1/openapi.json` of an in-process app) passes `redocly lint` (the
 * recommended rules of @redocly/cli, run as its own process, offline) with no error. Warnings are allowed and listed.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { openApiDocument } from "@iot/api";

const run = promisify(execFile);
const REDOCLY = join(import.meta.dirname, "node_modules", ".bin", "redocly");

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: "error" | "warn"; message: string; location: { pointer: string }[] }[];
}

describe("the OpenAPI document", () => {
  // A folder of its own: no redocly.yaml of ours or anyone's applies, so the recommended rules do.
  const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("passes redocly lint with no error", async () => {
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(await openApiDocument(), null, 2));
    const r = await run(REDOCLY, ["lint", file, "--format=json"], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      timeout: 30_000,
      maxBuffer: 16 << 20,
    }).catch((e: { stdout: string; stderr: string; code: number }) => e);
    const report = JSON.parse(r.stdout) as LintReport;
    const show = (p: LintReport["problems"][number]) =>
      `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? "?"}: ${p.message}`;
    const warnings = report.problems.filter((p) => p.severity === "warn").map(show);
    if (warnings.length > 0) console.info(`redocly lint warnings (allowed):\n${warnings.join("\n")}`);
    expect(report.problems.filter((p) => p.severity === "error").map(show)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 30_000);
});
