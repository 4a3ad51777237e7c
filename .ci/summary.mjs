// Turns vitest's JSON report into the closing line "N passed, N failed" and
// the exit code: non-zero when anything failed, a file failed to load, or no test ran.
import { existsSync, readFileSync } from "node:fs";

const [file, runnerStatus, typecheckStatus = "0", lintStatus = "0"] = process.argv.slice(2);
if (!file || !existsSync(file)) {
  console.log("0 passed, 1 failed");
  console.error("no test report was written: the test runner did not run");
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, "utf8"));
// A test file that fails to load has no tests but counts as a failure.
const brokenFiles = (r.testResults ?? []).filter(
  (f) => f.status === "failed" && (f.assertionResults ?? []).length === 0,
).length;
const passed = r.numPassedTests ?? 0;
// A failed typecheck, and failed formatting or lint, count as one failed check each.
const typecheckFailed = Number(typecheckStatus) !== 0 ? 1 : 0;
if (typecheckFailed) console.error("typecheck failed (see above)");
const lintFailed = Number(lintStatus) !== 0 ? 1 : 0;
if (lintFailed) console.error("lint failed (see above): run `pnpm format`, then fix what `pnpm lint` names");
const failed = (r.numFailedTests ?? 0) + brokenFiles + typecheckFailed + lintFailed;
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
const noneRan = passed + failed === 0;
if (noneRan) console.error("no test ran");
// The closing line comes last, so CI reads it as the run's result.
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(noneRan || failed > 0 || Number(runnerStatus) !== 0 ? 1 : 0);
