/**
 * The top self-time functions of V8 CPU profiles (`node --cpu-prof`), for the performance notes: which functions
 * a process spent its time in, as a share of its samples (idle excluded, so the shares say where the busy time went).
 *
 *   tsx scripts/cpu-profile-top.ts [--top=15] [--window=FROM-TO] <file.cpuprofile>…
 *
 * `--window` keeps only the samples taken between two instants of the monotonic clock in µs (the clock of
 * `process.hrtime` and of the profiles' own timestamps): a benchmark prints the window of its measured phase, so
 * setup work such as creating thousands of devices stays out of the shares.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  /** When the first sample was taken, µs of the monotonic clock. */
  startTime: number;
}

/** A short place for a function: its package (or file) and line, enough to find it. */
function where(url: string, line: number): string {
  if (!url) return "";
  const path = url.replace(/^file:\/\//, "");
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(path);
  const file = pkg ? `${pkg[1]}/${basename(pkg[2]!)}` : path.replace(/^.*\/packages\//, "");
  return `${file}:${line + 1}`;
}

/** Self time per function (name and place) in ms, and the busy total (every sample except idle). */
export function selfTimes(
  profile: Profile,
  window: readonly [number, number] = [-Infinity, Infinity],
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
    if (!node || node.callFrame.functionName === "(idle)" || at < window[0] || at > window[1]) return;
    const f = node.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${where(f.url, f.lineNumber)}`.trim();
    rows.set(key, (rows.get(key) ?? 0) + ms);
    busyMs += ms;
  });
  return { busyMs, rows };
}

const args = process.argv.slice(2);
const top = Number(args.find((a) => a.startsWith("--top="))?.slice(6) ?? 15);
const windowArg = /^--window=(\d+)-(\d+)$/.exec(args.find((a) => a.startsWith("--window=")) ?? "");
const window = windowArg ? ([Number(windowArg[1]), Number(windowArg[2])] as const) : undefined;
for (const file of args.filter((a) => !a.startsWith("--"))) {
  const { busyMs, rows } = selfTimes(JSON.parse(readFileSync(file, "utf8")) as Profile, window);
  console.log(`\n${basename(file)}: ${(busyMs / 1000).toFixed(2)} s busy`);
  console.log("| self % | self ms | function |\n|---:|---:|---|");
  for (const [key, ms] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`| ${((ms / busyMs) * 100).toFixed(1)} | ${Math.round(ms)} | \`${key}\` |`);
}
