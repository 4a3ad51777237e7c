/**
 * The top self-time functions of V8 CPU profiles (`node --cpu-prof`), for the performance notes: which functions
 * a process spent its time in, as a share of its samples (idle excluded, so the shares say where the busy time went).
 *
 *   tsx scripts/cpu-profile-top.ts [--top=15] [--from=µs --to=µs] <file.cpuprofile>…
 *
 * `--from`/`--to` keep only the samples taken within that window of the monotonic clock (microseconds, what
 * `process.hrtime.bigint() / 1000n` says in any process of the machine), so a benchmark can name one phase.
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { basename, dirname, resolve } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

interface Profile {
  /** When the first sample's delta starts, µs of the monotonic clock. */
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const sourceMaps = new Map<string, SourceMap | undefined>();

/** The source map beside a bundled file (the fleet's processes run bundles: scripts/bundle-entry.ts), if any. */
function sourceMapOf(path: string): SourceMap | undefined {
  if (!sourceMaps.has(path)) {
    const file = `${path}.map`;
    sourceMaps.set(path, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, "utf8"))) : undefined);
  }
  return sourceMaps.get(path);
}

/** A short place for a function: its package (or file) and line, enough to find it; a bundle's as its source's. */
function where(url: string, line: number, column: number): string {
  if (!url) return "";
  let path = url.replace(/^file:\/\//, "");
  const entry = sourceMapOf(path)?.findEntry(line, column) as { originalSource?: string; originalLine?: number };
  if (entry?.originalSource !== undefined && entry.originalLine !== undefined) {
    path = resolve(dirname(path), entry.originalSource.replace(/^file:\/\//, ""));
    line = entry.originalLine;
  }
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  const file = pkg ? `${pkg[1]}/${basename(pkg[2]!)}` : path.replace(/^.*\/packages\//, "");
  return `${file}:${line + 1}`;
}

/** Self time per function (name and place) in ms, and the busy total (every sample except idle). */
export function selfTimes(
  profile: Profile,
  window = { from: -Infinity, to: Infinity },
): { busyMs: number; rows: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const rows = new Map<string, number>();
  let busyMs = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    const ms = delta / 1000;
    if (at < window.from || at > window.to) return;
    if (!node || node.callFrame.functionName === "(idle)") return;
    const f = node.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${where(f.url, f.lineNumber, f.columnNumber)}`.trim();
    rows.set(key, (rows.get(key) ?? 0) + ms);
    busyMs += ms;
  });
  return { busyMs, rows };
}

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const top = Number(option("top") ?? 15);
const window = { from: Number(option("from") ?? -Infinity), to: Number(option("to") ?? Infinity) };
for (const file of args.filter((a) => !a.startsWith("--"))) {
  const { busyMs, rows } = selfTimes(JSON.parse(readFileSync(file, "utf8")) as Profile, window);
  console.log(`\n${basename(file)}: ${(busyMs / 1000).toFixed(2)} s busy`);
  console.log("| self % | self ms | function |\n|---:|---:|---|");
  for (const [key, ms] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`| ${((ms / busyMs) * 100).toFixed(1)} | ${Math.round(ms)} | \`${key}\` |`);
}
