import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADAPTERS, reachable, startProcess, stopProcess, type FleetProcess } from "../scripts/fleet.js";
import { freePorts, type TestDevice } from "./helpers.js";

/** The admin password of a restartable fleet. */
const PASSWORD = "restart-pass-1";

/**
 * A central node and adapters as separate processes, for tests that stop, kill or restart any of them under
 * connected devices: the gRPC and device ports are fixed up front, so a restarted adapter finds the central node
 * again and devices find the restarted adapter on the address they had.
 */
export interface RestartableFleet {
  /** The first central node (the one `api` calls). */
  readonly central: FleetProcess;
  /** Every central node, the latest process of each: one, or two and more on one PostgreSQL database. */
  readonly centrals: readonly FleetProcess[];
  /** The MQTT adapter. */
  readonly adapter: FleetProcess;
  /** Every running adapter by name (`mqtt-adapter`, `http-adapter`, …), the latest process of each. */
  readonly adapters: ReadonlyMap<string, FleetProcess>;
  /** The settings every process of the fleet got (ports, data directory, database). */
  readonly settings: Readonly<Record<string, string>>;
  /** The REST API of the current central node, logged in as admin. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Starts central node `node` (default the first) again after it was stopped or killed, on its data and ports. */
  startCentral(node?: number): Promise<void>;
  /**
   * A product of `cloudProtocol` (1 MQTT, 2 CoAP, 3 LwM2M, 5 HTTP, …) with one token device named `name` in it;
   * `extra` adds to the device's creation body (an LwM2M device's IMEI).
   */
  newDevice(cloudProtocol: number, name: string, extra?: Record<string, unknown>): Promise<TestDevice>;
  /**
   * Starts (again, after it was stopped or killed) one adapter of `scripts/fleet.ts` ADAPTERS by name; `env` adds
   * settings of its own (the Modbus adapter's gateway credentials).
   */
  startAdapter(name: string, env?: Record<string, string>): Promise<FleetProcess>;
  close(): Promise<void>;
}

/** kill -9: ends a process with no chance to clean up, and waits until it is gone. */
export async function killHard(p: FleetProcess): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = once(p.child, "exit");
  p.child.kill("SIGKILL");
  await exited;
}

/**
 * Everything `p` logs (stderr) from now on, for asserting on the lines a fault causes: `errors` keeps only the last
 * 200 lines, which a noisy outage can push an early line out of.
 */
export function watchLog(p: FleetProcess): () => string {
  let text = "";
  p.child.stderr!.on("data", (b: Buffer) => (text += b.toString()));
  return () => text;
}

/**
 * Starts the central node and the adapters named in `adapters` (default the MQTT adapter) on a fresh SQLite file;
 * `env` adds or overrides settings (IOT_DATABASE_URL for PostgreSQL). With `nodes` above 1 (PostgreSQL only) the
 * central nodes share the database, each on gRPC and API ports of its own, and every adapter is given them all.
 */
export async function startRestartableFleet(
  env: Record<string, string> = {},
  adapters: readonly string[] = ["mqtt-adapter"],
  nodes = 1,
): Promise<RestartableFleet> {
  const dataDir = mkdtempSync(join(tmpdir(), "restartable-"));
  // Node 0 takes the settings' ports; each other node fixed ports of its own, so a restart finds them again.
  const others = await Promise.all(Array.from({ length: nodes - 1 }, () => freePorts(2)));
  const nodePorts: Record<string, string>[] = [
    {},
    ...others.map(([grpc, api]) => ({ IOT_GRPC_PORT: String(grpc), IOT_API_PORT: String(api) })),
  ];
  const [grpc, mqtt, http, coap, lwm2m] = (await freePorts(5)).map(String);
  const settings: Record<string, string> = {
    IOT_DATA_DIR: dataDir,
    IOT_DATABASE_URL: "",
    IOT_API_HOST: "127.0.0.1",
    IOT_API_PORT: "0",
    IOT_GRPC_PORT: grpc!,
    IOT_MQTT_PORT: mqtt!,
    IOT_MQTTS_PORT: "0",
    IOT_MQTTSS_PORT: "0",
    IOT_MQTT_WS_PORT: "0",
    IOT_HTTP_DEVICE_PORT: http!,
    IOT_COAP_PORT: coap!,
    IOT_COAPS_PORT: "0",
    IOT_COAPSS_PORT: "0",
    IOT_LWM2M_PORT: lwm2m!,
    IOT_LWM2M_DTLS_PORT: "0",
    IOT_ADMIN_PASSWORD: PASSWORD,
    IOT_LOG_LEVEL: "warn",
    ...env,
  };
  const centrals: FleetProcess[] = [];
  const running = new Map<string, FleetProcess>();
  let token = "";
  let apiUrl = "";
  const api: RestartableFleet["api"] = async (method, path, body) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  const startCentral = async (node = 0) => {
    const name = node === 0 ? "central" : `central-${node + 1}`;
    centrals[node] = await startProcess(name, "packages/central/src/main.ts", { ...settings, ...nodePorts[node] });
    if (node !== 0) return;
    apiUrl = `${reachable(centrals[0]!.urls.api!)}/api/v1`;
    token = "";
    token = (await api("POST", "/login", { username: "admin", password: PASSWORD })).body.token;
  };
  const registryUrl = () =>
    [settings.IOT_GRPC_PORT, ...others.map(([grpc]) => grpc)].map((port) => `127.0.0.1:${port}`).join(",");
  const startAdapter = async (name: string, env: Record<string, string> = {}) => {
    const entry = ADAPTERS.find((a) => a.name === name)?.entry;
    if (!entry) throw new Error(`no adapter named ${name}`);
    const p = await startProcess(name, entry, {
      ...settings,
      IOT_REGISTRY_URL: registryUrl(),
      ...env,
    });
    running.set(name, p);
    return p;
  };
  const newDevice = async (cloudProtocol: number, name: string, extra: Record<string, unknown> = {}) => {
    const product = (await api("POST", "/products", { productName: name, cloudProtocol })).body;
    const d = await api("POST", "/devices", {
      productID: product.productID,
      deviceName: name,
      deviceType: 1,
      upLinkSystem: 1,
      authType: 1,
      ...extra,
    });
    if (d.status !== 201) throw new Error(`device ${name} not created: ${d.status} ${JSON.stringify(d.body)}`);
    return d.body as TestDevice;
  };
  for (let node = 0; node < nodes; node++) await startCentral(node);
  for (const name of adapters) await startAdapter(name);
  return {
    get central() {
      return centrals[0]!;
    },
    centrals,
    get adapter() {
      return running.get("mqtt-adapter")!;
    },
    adapters: running,
    settings,
    api,
    startCentral,
    startAdapter,
    newDevice,
    async close() {
      await Promise.all([...running.values()].map((p) => stopProcess(p)));
      await Promise.all(centrals.map((c) => stopProcess(c)));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
