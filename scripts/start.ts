/**
 * `pnpm start`: the whole fleet on this machine — the central node (registry,
 * gRPC, REST API) and every adapter as separate processes. Ctrl-C or SIGTERM
 * stops them all; if one dies, the rest are stopped and the exit code is 1.
 */
import { existsSync, readFileSync } from "node:fs";
import { ensureConsoleBuilt } from "../packages/console/src/console-build.js";
import { DEFAULT_METRICS_PORTS, startFleet, type Fleet } from "./fleet.js";

let fleet: Fleet | undefined;
let stopping = false;

async function shutdown(code: number): Promise<never> {
  stopping = true;
  await fleet?.stop();
  process.exit(code);
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
process.on("SIGHUP", () => void shutdown(0));

// npx and pnpm, sent SIGTERM, exit without passing it on to the script they
// run: watch the whole launch chain so the fleet never outlives the command.
const watched = launchChain();
setInterval(() => {
  if (!stopping && watched.some((pid) => !alive(pid))) void shutdown(0);
}, 500).unref();

/** Ancestors that belong to the launching command (node, npm, npx, pnpm, sh), nearest first; Linux /proc only. */
function launchChain(): number[] {
  const chain = [process.ppid];
  for (let pid = process.ppid; chain.length < 6;) {
    const stat = `/proc/${pid}/stat`;
    if (!existsSync(stat)) break;
    const text = readFileSync(stat, "utf8");
    const comm = text.slice(text.indexOf("(") + 1, text.lastIndexOf(")"));
    if (!/^(node|npm|npx|pnpm|sh|dash)\b/.test(comm) && pid !== process.ppid) {
      chain.pop(); // not part of the launch: do not watch it
      break;
    }
    pid = Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1]);
    if (!(pid > 1)) break;
    chain.push(pid);
  }
  return chain;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

// `pnpm install` built the web console; sources changed since (a pull, an edit) are built again here.
try {
  if (await ensureConsoleBuilt()) process.stdout.write("Built the web console (packages/console).\n");
} catch (err) {
  process.stderr.write(`The web console could not be built, /console will say so: ${(err as Error).message}\n`);
}

try {
  // Each adapter serves its metrics on a port of its own unless the environment chooses (-1 turns one off).
  fleet = await startFleet({ ...DEFAULT_METRICS_PORTS, ...process.env }, { echo: true });
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
for (const p of [fleet.central, ...fleet.adapters]) {
  p.child.once("exit", (code) => {
    if (stopping) return;
    process.stderr.write(`${p.name} stopped unexpectedly (exit code ${code}); stopping the fleet\n`);
    void shutdown(1);
  });
}
// The token itself is never printed: whoever reads the output could act as an adapter.
const grpcToken = fleet.registryTokenGenerated
  ? "token made for this run: set IOT_REGISTRY_TOKEN to attach adapters of your own"
  : "token from IOT_REGISTRY_TOKEN";
process.stdout.write(
  [
    "Fleet is up:",
    `  REST API   ${fleet.central.urls.api}/api/v1   (health: ${fleet.central.urls.api}/api/v1/health)`,
    `  Console    ${fleet.central.urls.api}/console/   (the same users as the API)`,
    `  gRPC       ${fleet.central.urls.grpc}   (adapters; ${grpcToken})`,
    `  metrics    ${fleet.central.urls.api}/metrics   (central node; Prometheus)`,
    ...fleet.adapters.flatMap((a) => Object.entries(a.urls).map(([k, v]) => `  ${k.padEnd(10)} ${v}   (${a.name})`)),
    "Press Ctrl-C to stop.",
    "",
  ].join("\n"),
);
