/**
 * Runs every benchmark and prints one table (measure, figure, baseline, ratio, goal, met), then writes it with the
 * machine it ran on to bench/RESULTS.md in place of its head (the file's "## " sections after it are kept).
 *
 *   pnpm bench [--smoke] [--only bench:rest,bench:commands] [--out bench/RESULTS.md]
 *
 * The benchmarks are found by convention: every `bench:<name>` script of the root package.json, each printing
 * `RESULT {json}` lines (bench/result.ts); a script that prints none still gets a row saying so. They run one at a
 * time (they would skew each other), with their default sizes, or with `--smoke` the tiny arguments of
 * bench/package.json's `smoke` map (a script without one is skipped): the CI smoke test's run, which checks that
 * each still works and times nothing. `--smoke` writes no RESULTS.md unless `--out` is given. Exits 1 when a
 * benchmark printed no result (it broke); a missed goal is a row of the table, not a failure of the run.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseResults, resultsFile, type BenchResult } from "./result.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Options of a run, from the command line. */
interface RunOptions {
  smoke: boolean;
  only: string[] | undefined;
  out: string | undefined;
}

function optionsOf(argv: readonly string[]): RunOptions {
  const valueOf = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const smoke = argv.includes("--smoke");
  const out = valueOf("--out") ?? (smoke ? undefined : join(root, "bench", "RESULTS.md"));
  return { smoke, only: valueOf("--only")?.split(","), out };
}

/** The `bench:*` scripts and their smoke arguments. */
function benchmarks(): Array<{ script: string; command: string; smokeArgs: string[] | undefined }> {
  const scripts = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> })
    .scripts;
  const smoke =
    (JSON.parse(readFileSync(join(root, "bench", "package.json"), "utf8")) as { smoke?: Record<string, string> })
      .smoke ?? {};
  return Object.entries(scripts)
    .filter(([name]) => name.startsWith("bench:"))
    .map(([script, command]) => ({ script, command, smokeArgs: smoke[script]?.split(" ").filter(Boolean) }));
}

/** Runs one script through pnpm's own command line, streaming its output; resolves with it and the exit code. */
function run(command: string, args: readonly string[]): Promise<{ output: string; code: number }> {
  return new Promise((resolve) => {
    const line = [command, ...args].join(" ");
    const env = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH ?? ""}` };
    const child = spawn(line, { cwd: root, env, shell: true, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
      process.stderr.write(chunk);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("close", (code) => resolve({ output, code: code ?? 1 }));
  });
}

/** A Markdown table of the results. */
export function tableOf(rows: ReadonlyArray<BenchResult & { script: string }>): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const lines = [
    "| benchmark | measure | figure | baseline | ratio | goal | met |",
    "|---|---|---|---|---|---|---|",
    ...rows.map((r) =>
      [
        r.script,
        r.measure,
        r.figure,
        r.baseline,
        r.ratio === null ? "" : r.ratio.toFixed(2),
        r.goal,
        r.met === null ? "" : r.met ? "yes" : "NO",
      ]
        .map(cell)
        .join(" | "),
    ),
  ];
  return lines.map((l, i) => (i < 2 ? l : `| ${l} |`)).join("\n");
}

/** The machine the figures were measured on. */
function machine(): string {
  const cpu = cpus();
  return [
    `- CPU: ${cpu[0]?.model ?? "unknown"}, ${cpu.length} cores`,
    `- RAM: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Node.js: ${process.version}`,
    `- date: ${new Date().toISOString()}`,
  ].join("\n");
}

const options = optionsOf(process.argv.slice(2));
const rows: Array<BenchResult & { script: string }> = [];
let failures = 0;
for (const b of benchmarks()) {
  if (options.only && !options.only.includes(b.script)) continue;
  if (options.smoke && !b.smokeArgs) {
    console.error(`${b.script}: no smoke arguments in bench/package.json, skipped`);
    continue;
  }
  console.error(`\n== ${b.script}`);
  const { output, code } = await run(b.command, options.smoke ? b.smokeArgs! : []);
  const results = parseResults(output);
  // A missed goal may end a benchmark with exit code 1, but one that printed no result is broken.
  if (results.length === 0) failures++;
  if (results.length === 0)
    rows.push({
      script: b.script,
      measure: code === 0 ? "(printed no RESULT line)" : `(failed, exit code ${code})`,
      figure: "",
      baseline: "",
      ratio: null,
      goal: "",
      met: null,
    });
  for (const r of results) rows.push({ script: b.script, ...r });
}
const table = tableOf(rows);
console.log(table);
if (options.out) {
  const note = [
    options.smoke ? "Smoke run (tiny sizes): the figures mean nothing." : "",
    options.only ? `Only ${options.only.join(", ")}.` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const latest = `# Benchmark results\n\nWritten by \`pnpm bench\` (bench/run-all.ts).${note ? ` ${note}` : ""}\n\n${machine()}\n\n${table}\n`;
  writeFileSync(
    options.out,
    resultsFile(existsSync(options.out) ? readFileSync(options.out, "utf8") : undefined, latest),
  );
  console.error(`written to ${options.out}`);
}
if (failures > 0) process.exitCode = 1;
