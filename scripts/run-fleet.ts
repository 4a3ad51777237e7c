/**
 * What `pnpm start` and `pnpm start:cluster` share: the fleet on this machine — the central node(s) (registry, gRPC,
 * REST API) and every adapter as separate processes, in the foreground. Ctrl-C or SIGTERM stops them all; if one
 * dies, the rest are stopped and the exit code is 1.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { ensureConsoleBuilt } from "../packages/console/src/console-build.js";
import { readCentralConfig } from "../packages/central/src/config.js";
import { DEFAULT_METRICS_PORTS, reachable, startFleet, type Fleet, type FleetOptions } from "./fleet.js";

/** Whether a TCP port can be listened on at `host` right now. */
function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer()
      .once("error", () => resolve(false))
      .listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/**
 * The adapters' metrics ports for this run: the environment's, else the defaults (9101–9106), each default already
 * taken (a second fleet on the host, another exporter) replaced by 0 so the adapter picks a free one and its READY
 * line says which. Answers the settings and the variables whose default was taken.
 */
async function metricsPorts(env: NodeJS.ProcessEnv): Promise<{ ports: Record<string, string>; taken: string[] }> {
  const ports: Record<string, string> = {};
  const taken: string[] = [];
  const host = env.IOT_METRICS_HOST || "0.0.0.0";
  for (const [name, port] of Object.entries(DEFAULT_METRICS_PORTS)) {
    if (env[name] !== undefined && env[name] !== "") continue;
    const free = await portFree(Number(port), host);
    ports[name] = free ? port : "0";
    if (!free) taken.push(name);
  }
  return { ports, taken };
}

/** A line for each running adapter whose default metrics port was taken: where it serves them instead. */
function metricsNotes(fleet: Fleet, taken: readonly string[]): string[] {
  return taken.flatMap((name) => {
    const adapter = `${/^IOT_(\w+)_METRICS_PORT$/.exec(name)![1]!.toLowerCase()}-adapter`;
    const url = fleet.adapters.find((a) => a.name === adapter)?.urls.metrics;
    return url
      ? [`  (${adapter}: metrics port ${DEFAULT_METRICS_PORTS[name]} was taken, so ${url}; ${name} chooses one)`]
      : [];
  });
}

/** Which record form the API answers, how to log in and what to try first, for the banner. */
function firstSteps(apiUrl: string, env: NodeJS.ProcessEnv): string[] {
  const c = readCentralConfig(env);
  const api = reachable(apiUrl);
  const other = c.apiForm === "1" ? "2" : "1";
  const password = c.adminPassword ? "$IOT_ADMIN_PASSWORD" : "<password>";
  const body = `{\\"username\\":\\"${c.adminUsername}\\",\\"password\\":\\"${password}\\"}`;
  return [
    `  Records    Form ${c.apiForm} (IOT_API_FORM=${other} for Form ${other})`,
    `  Log in     as "${c.adminUsername}" with ${c.adminPassword ? "IOT_ADMIN_PASSWORD" : "the password printed at first start (shown once)"}`,
    "Try:",
    `  npx --yes pnpm@10.34.8 iot login --url ${api} -u ${c.adminUsername} -p "${password}"`,
    `  curl -s ${api}/api/v1/login -H 'content-type: application/json' -d "${body}"`,
    '  then a product, a device and mosquitto_pub: README.md, "Using it"',
  ];
}

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

/**
 * Builds the console if needed, starts the fleet (`options.nodes` central nodes), prints where everything listens,
 * and keeps running until Ctrl-C, SIGTERM, the end of the launching command, or the death of one of its processes.
 */
export async function runFleet(options: Pick<FleetOptions, "nodes"> = {}): Promise<void> {
  let fleet: Fleet | undefined;
  let metrics: Awaited<ReturnType<typeof metricsPorts>> = { ports: {}, taken: [] };
  let stopping = false;
  const shutdown = async (code: number): Promise<never> => {
    stopping = true;
    await fleet?.stop();
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  process.on("SIGHUP", () => void shutdown(0));

  // npx and pnpm, sent SIGTERM, exit without passing it on to the script they
  // run: watch the whole launch chain so the fleet never outlives the command.
  const watched = launchChain();
  setInterval(() => {
    if (!stopping && watched.some((pid) => !alive(pid))) void shutdown(0);
  }, 500).unref();

  // `pnpm install` built the web console; sources changed since (a pull, an edit) are built again here.
  try {
    if (await ensureConsoleBuilt()) process.stdout.write("Built the web console (packages/console).\n");
  } catch (err) {
    process.stderr.write(`The web console could not be built, /console will say so: ${(err as Error).message}\n`);
  }

  try {
    // Each adapter serves its metrics on a port of its own unless the environment chooses (-1 turns one off).
    metrics = await metricsPorts(process.env);
    fleet = await startFleet({ ...process.env, ...metrics.ports }, { echo: true, ...options });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
  // With several central nodes one may die (that is what the cluster is for): its adapters move to another.
  let centralsUp = fleet.centrals.length;
  for (const p of [...fleet.centrals, ...fleet.adapters]) {
    p.child.once("exit", (code, signal) => {
      if (stopping) return;
      const how = `exit code ${code ?? signal}`;
      if (fleet.centrals.includes(p) && --centralsUp > 0) {
        process.stderr.write(`${p.name} stopped (${how}); its adapters move to the other central nodes\n`);
        return;
      }
      process.stderr.write(`${p.name} stopped unexpectedly (${how}); stopping the fleet\n`);
      void shutdown(1);
    });
  }
  // The token itself is never printed: whoever reads the output could act as an adapter.
  const grpcToken = fleet.registryTokenGenerated
    ? "token made for this run: set IOT_REGISTRY_TOKEN to attach adapters of your own"
    : "token from IOT_REGISTRY_TOKEN";
  const several = fleet.centrals.length > 1;
  process.stdout.write(
    [
      several
        ? `Fleet is up: ${fleet.centrals.length} central nodes on one database, adapters given them all`
        : "Fleet is up:",
      ...fleet.centrals.flatMap((c) => [
        ...(several ? [`  ${c.name}:`] : []),
        `  REST API   ${c.urls.api}/api/v1   (health: ${c.urls.api}/api/v1/health)`,
        `  Console    ${c.urls.api}/console/   (the same users as the API)`,
        `  gRPC       ${c.urls.grpc}   (adapters; ${grpcToken})`,
        `  metrics    ${c.urls.api}/metrics   (central node; Prometheus)`,
      ]),
      ...fleet.adapters.flatMap((a) => Object.entries(a.urls).map(([k, v]) => `  ${k.padEnd(10)} ${v}   (${a.name})`)),
      ...metricsNotes(fleet, metrics.taken),
      ...firstSteps(fleet.central.urls.api!, process.env),
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
}
