import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reachable, startProcess, stopProcess, type FleetProcess } from "../scripts/fleet.js";
import { freePort } from "./helpers.js";

/** The admin password of a restartable fleet. */
const PASSWORD = "restart-pass-1";

/**
 * A central node and an MQTT adapter as separate processes, for tests that stop, kill or restart the central node
 * under connected devices: the gRPC port is fixed up front, so the adapter finds the restarted node again.
 */
export interface RestartableFleet {
  readonly central: FleetProcess;
  readonly adapter: FleetProcess;
  /** The REST API of the current central node, logged in as admin. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Starts the central node again (after it was stopped or killed) on the same data and ports. */
  startCentral(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the central node and the MQTT adapter on a fresh SQLite file; `env` adds or overrides settings. */
export async function startRestartableFleet(env: Record<string, string> = {}): Promise<RestartableFleet> {
  const dataDir = mkdtempSync(join(tmpdir(), "restartable-"));
  const settings: Record<string, string> = {
    IOT_DATA_DIR: dataDir,
    IOT_DATABASE_URL: "",
    IOT_API_HOST: "127.0.0.1",
    IOT_API_PORT: "0",
    IOT_GRPC_PORT: String(await freePort()),
    IOT_MQTT_PORT: "0",
    IOT_MQTTS_PORT: "0",
    IOT_MQTTSS_PORT: "0",
    IOT_MQTT_WS_PORT: "0",
    IOT_ADMIN_PASSWORD: PASSWORD,
    IOT_LOG_LEVEL: "warn",
    ...env,
  };
  let central!: FleetProcess;
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
  const startCentral = async () => {
    central = await startProcess("central", "packages/central/src/main.ts", settings);
    apiUrl = `${reachable(central.urls.api!)}/api/v1`;
    token = "";
    token = (await api("POST", "/login", { username: "admin", password: PASSWORD })).body.token;
  };
  await startCentral();
  const adapter = await startProcess("mqtt-adapter", "packages/adapters/mqtt/src/main.ts", {
    ...settings,
    IOT_REGISTRY_URL: `127.0.0.1:${settings.IOT_GRPC_PORT}`,
  });
  return {
    get central() {
      return central;
    },
    adapter,
    api,
    startCentral,
    async close() {
      await stopProcess(adapter);
      await stopProcess(central);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
