// Turns vitest's JSON reports into the closing line "N passed, N failed" and the exit code: non-zero when anything
// failed, a file failed to load, or no test ran.
// Arguments: <report> <runner status> [typecheck status] [lint status], then any number of
// `--also <label> <report> <runner status>` for further runs (the unit tests on another Node), counted in the line.
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
const alsoAt = args.indexOf("--also") === -1 ? args.length : args.indexOf("--also");
const [file, runnerStatus, typecheckStatus = "0", lintStatus = "0"] = args.slice(0, alsoAt);
const also = [];
for (let i = alsoAt; i < args.length; i += 4) {
  if (args[i] !== "--also" || i + 3 >= args.length) {
    console.error("usage: summary.mjs <report> <status> [typecheck] [lint] [--also <label> <report> <status>]...");
    process.exit(2);
  }
  also.push({ label: args[i + 1], file: args[i + 2], runnerStatus: args[i + 3] });
}

/** One run's counts; a missing report (the runner did not run) is one failure. */
function counts(report) {
  if (!report || !existsSync(report)) return { passed: 0, failed: 1, skipped: 0, missing: true };
  const r = JSON.parse(readFileSync(report, "utf8"));
  // A test file that fails to load has no tests but counts as a failure.
  const brokenFiles = (r.testResults ?? []).filter(
    (f) => f.status === "failed" && (f.assertionResults ?? []).length === 0,
  ).length;
  return {
    passed: r.numPassedTests ?? 0,
    failed: (r.numFailedTests ?? 0) + brokenFiles,
    skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
    missing: false,
  };
}

/** The names of a run's failed tests ("file > test"), and of its files that failed to load. */
function failures(report) {
  if (!report || !existsSync(report)) return [];
  const r = JSON.parse(readFileSync(report, "utf8"));
  const names = [];
  for (const f of r.testResults ?? []) {
    const file = f.name?.replace(`${process.cwd()}/`, "") ?? "?";
    const failed = (f.assertionResults ?? []).filter((a) => a.status === "failed");
    if (f.status === "failed" && failed.length === 0) names.push(`${file} (did not load: ${f.message ?? ""})`);
    for (const a of failed) names.push(`${file} > ${a.fullName ?? a.title}`);
  }
  return names;
}

const line = (c) => `${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ""}`;

const main = counts(file);
if (main.missing) console.error("no test report was written: the test runner did not run");
let ok = !main.missing && Number(runnerStatus) === 0 && main.passed > 0;
if (!main.missing && main.passed + main.failed === 0) console.error("no test ran");
const total = { ...main };
// A failed typecheck, and failed formatting or lint, count as one failed check each.
if (Number(typecheckStatus) !== 0) {
  console.log("FAILED: typecheck (see above)");
  total.failed += 1;
}
if (Number(lintStatus) !== 0) {
  console.log("FAILED: lint (see above): run `pnpm format`, then fix what `pnpm lint` names");
  total.failed += 1;
}
for (const run of also) {
  const c = counts(run.file);
  // Each further run's own line, before the closing one, says what it added.
  console.log(`${run.label}: ${line(c)}${c.missing ? " (no report: the runner did not run)" : ""}`);
  if (c.missing || c.passed === 0 || Number(run.runnerStatus) !== 0) ok = false;
  total.passed += c.passed;
  total.failed += c.failed;
  total.skipped += c.skipped;
}
// What failed is named last but one: CI shows only the tail of the output.
for (const [label, report] of [["main run", file], ...also.map((run) => [run.label, run.file])])
  for (const name of failures(report)) console.log(`FAILED (${label}): ${name}`);
// The closing line comes last, so CI reads it as the run's result.
console.log(line(total));
process.exit(ok && total.failed === 0 ? 0 : 1);
