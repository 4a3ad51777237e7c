import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleEntry } from "./bundle-entry.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * The adapters `pnpm start` launches after the central node, each its own process; one with `when` only when its
 * settings are given (the Modbus adapter runs for one gateway: IOT_MODBUS_GATEWAY_ID and _TOKEN; the LoRaWAN
 * network server when IOT_LORA_UDP_PORT is set, 1700 being the packet forwarder's usual port).
 */
export const ADAPTERS: ReadonlyArray<{
  name: string;
  entry: string;
  when?: (env: Record<string, string | undefined>) => boolean;
}> = [
  { name: "mqtt-adapter", entry: "packages/adapters/mqtt/src/main.ts" },
  { name: "http-adapter", entry: "packages/adapters/http/src/main.ts" },
  { name: "coap-adapter", entry: "packages/adapters/coap/src/main.ts" },
  { name: "lwm2m-adapter", entry: "packages/adapters/lwm2m/src/main.ts" },
  {
    name: "lorawan-adapter",
    entry: "packages/adapters/lorawan/src/main.ts",
    when: (env) => !!env.IOT_LORA_UDP_PORT,
  },
  {
    name: "modbus-adapter",
    entry: "packages/adapters/modbus/src/main.ts",
    when: (env) => !!env.IOT_MODBUS_GATEWAY_ID,
  },
];

/**
 * Node options of a central node (`pnpm central` has the same): a young generation of up to 32 MB a half. Under MQTT
 * ingest the default one was scavenged about ten times a second, each pause 3–18 ms on the event loop that
 * acknowledges uplinks; at 32 MB, 1–26 pauses over 3 ms per 5 s instead of 35–48, and the central node's CPU per 100k
 * uplinks 2.34–3.06 s against 2.87–3.15 (docs/performance.md, "MQTT QoS 1 ingest"). Memory per held connection did
 * not change.
 */
export const CENTRAL_NODE_ARGS: readonly string[] = ["--max-semi-space-size=32"];

/**
 * The metrics port `pnpm start` gives each adapter when its IOT_<ADAPTER>_METRICS_PORT is not set: one each, so the
 * adapters of one host never collide (an adapter started on its own serves no metrics unless its variable is set).
 */
export const DEFAULT_METRICS_PORTS: Readonly<Record<string, string>> = {
  IOT_MQTT_METRICS_PORT: "9101",
  IOT_HTTP_METRICS_PORT: "9102",
  IOT_COAP_METRICS_PORT: "9103",
  IOT_LWM2M_METRICS_PORT: "9104",
  IOT_MODBUS_METRICS_PORT: "9105",
  IOT_LORAWAN_METRICS_PORT: "9106",
};

/** A child process of the fleet; `urls` come from its `READY <name> key=url …` line. */
export interface FleetProcess {
  name: string;
  child: ChildProcess;
  urls: Record<string, string>;
  /** Every line it printed to stdout (tests read the generated password here). */
  output: string[];
  /** The last 200 lines it printed to stderr (its logs), for diagnosing failures. */
  errors: string[];
}

/**
 * Starts one TypeScript entry point under Node, from its bundle (built first if a source changed: see
 * bundle-entry.ts; about half the CPU of loading the sources with tsx), with source maps on so stack traces name the
 * .ts files. Resolves once it prints its READY line; rejects with its stderr if it exits first.
 */
export async function startProcess(
  name: string,
  entry: string,
  env: Record<string, string | undefined>,
  opts: { echo?: boolean; timeoutMs?: number; nodeArgs?: readonly string[] } = {},
): Promise<FleetProcess> {
  const script = await bundleEntry(entry);
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), "--enable-source-maps", script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const errors: string[] = [];
  createInterface({ input: child.stderr }).on("line", (line) => {
    errors.push(line);
    if (errors.length > 200) errors.shift();
    if (opts.echo) process.stderr.write(`[${name}] ${line}\n`);
  });
  const ready = new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${opts.timeoutMs ?? 30_000} ms`)),
      opts.timeoutMs ?? 30_000,
    );
    createInterface({ input: child.stdout }).on("line", (line) => {
      output.push(line);
      if (opts.echo) process.stdout.write(`[${name}] ${line}\n`);
      const m = /^READY (\S+)(.*)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Object.fromEntries([...m[2]!.matchAll(/(\w+)=(\S+)/g)].map((x) => [x[1]!, x[2]!])));
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code}: ${errors.slice(-5).join("\n")}`));
    });
  });
  try {
    return { name, child, urls: await ready, output, errors };
  } catch (err) {
    child.kill("SIGKILL");
    throw err;
  }
}

/**
 * Asks a process to stop (SIGTERM) and kills it if it has not exited after
 * `graceMs`. Answers its exit code, or the signal's name when a signal ended it.
 */
export async function stopProcess(p: FleetProcess, graceMs = 5_000): Promise<number | string | null> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return p.child.exitCode ?? p.child.signalCode;
  const exited = once(p.child, "exit");
  p.child.kill("SIGTERM");
  const timer = setTimeout(() => p.child.kill("SIGKILL"), graceMs);
  const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  return code ?? signal;
}

/** A loopback-reachable form of a listen address (0.0.0.0 → 127.0.0.1). */
export function reachable(hostPort: string): string {
  return hostPort.replace(/^(\w+:\/\/)?0\.0\.0\.0/, (_m, scheme: string | undefined) => `${scheme ?? ""}127.0.0.1`);
}

/** The central node(s) and every adapter, started in order. */
export interface Fleet {
  /** The first central node (the only one unless `nodes` was more than 1). */
  central: FleetProcess;
  /** Every central node, in start order: with several, they share one PostgreSQL database (IOT_DATABASE_URL). */
  centrals: FleetProcess[];
  adapters: FleetProcess[];
  /** The IOT_REGISTRY_TOKEN every process of the fleet shares: the one given, else the one made for this run. */
  registryToken: string;
  /** True when `registryToken` was made for this run because none was given. */
  registryTokenGenerated: boolean;
  stop(): Promise<void>;
}

/**
 * Settings for a fleet of central nodes on one PostgreSQL database with plain-TCP MQTT only, every listener on a
 * port the OS picks: what the cluster tests and bench:cluster start.
 */
export function clusterMqttEnv(
  databaseUrl: string,
  dataDir: string,
  adminPassword: string,
  logLevel = "warn",
): Record<string, string> {
  return {
    IOT_DATABASE_URL: databaseUrl,
    IOT_DATA_DIR: dataDir,
    IOT_API_HOST: "127.0.0.1",
    IOT_API_PORT: "0",
    IOT_GRPC_PORT: "0",
    IOT_MQTT_PORT: "0",
    IOT_MQTTS_PORT: "-1",
    IOT_MQTTSS_PORT: "-1",
    IOT_MQTT_WS_PORT: "-1",
    IOT_ADMIN_PASSWORD: adminPassword,
    IOT_LOG_LEVEL: logLevel,
  };
}

/** A fresh adapter token: 32 random bytes (256 bits), base64url. */
export function newRegistryToken(): string {
  return randomBytes(32).toString("base64url");
}

/** How a fleet is started: echo the children's output, several central nodes, only some adapters. */
export interface FleetOptions {
  echo?: boolean;
  /**
   * Central nodes to start (default 1), one after the other on the same database; node i (from 0) listens on the
   * given IOT_API_PORT and IOT_GRPC_PORT plus i (0 stays 0: the OS picks). Every adapter is given all their gRPC
   * addresses (IOT_REGISTRY_URL, comma-separated) and fails over between them.
   */
  nodes?: number;
  /** Names of the adapters to start (see ADAPTERS); default every one whose settings are given. */
  adapters?: readonly string[];
  /** Extra Node options for every process, e.g. `--cpu-prof` (a benchmark profiling the fleet). */
  nodeArgs?: readonly string[];
}

/** `port` + `offset` for node `offset`'s listener, keeping 0 (any free port) as it is. */
function nodePort(port: string | undefined, fallback: number, offset: number): string {
  const base = port === undefined || port === "" ? fallback : Number(port);
  return String(base === 0 ? 0 : base + offset);
}

/**
 * Starts the central node(s), then every adapter pointed at their gRPC addresses.
 * Stopping ends the adapters first so they can report their sessions closed.
 * Without an `IOT_REGISTRY_TOKEN` in `env`, the processes share one made for
 * this run, so no other local user can call the gRPC endpoint as an adapter.
 */
export async function startFleet(given: Record<string, string | undefined>, opts: FleetOptions = {}): Promise<Fleet> {
  const registryTokenGenerated = !given.IOT_REGISTRY_TOKEN;
  const registryToken = given.IOT_REGISTRY_TOKEN || newRegistryToken();
  const env: Record<string, string | undefined> = { ...given, IOT_REGISTRY_TOKEN: registryToken };
  const nodes = opts.nodes ?? 1;
  const centrals: FleetProcess[] = [];
  const adapters: FleetProcess[] = [];
  const stop = async () => {
    await Promise.all(adapters.map((a) => stopProcess(a)));
    await Promise.all(centrals.map((c) => stopProcess(c)));
  };
  try {
    for (let i = 0; i < nodes; i++) {
      const ports =
        nodes === 1
          ? {}
          : { IOT_API_PORT: nodePort(env.IOT_API_PORT, 8080, i), IOT_GRPC_PORT: nodePort(env.IOT_GRPC_PORT, 50051, i) };
      const name = nodes === 1 ? "central" : `central-${i + 1}`;
      const nodeArgs = [...CENTRAL_NODE_ARGS, ...(opts.nodeArgs ?? [])];
      centrals.push(
        await startProcess(name, "packages/central/src/main.ts", { ...env, ...ports }, { ...opts, nodeArgs }),
      );
    }
    const registryUrl = centrals.map((c) => reachable(c.urls.grpc!)).join(",");
    const wanted = ADAPTERS.filter((x) => (opts.adapters ? opts.adapters.includes(x.name) : (x.when?.(env) ?? true)));
    for (const a of wanted)
      adapters.push(await startProcess(a.name, a.entry, { ...env, IOT_REGISTRY_URL: registryUrl }, opts));
  } catch (err) {
    await stop();
    throw err;
  }
  return { central: centrals[0]!, centrals, adapters, registryToken, registryTokenGenerated, stop };
}
