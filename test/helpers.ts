import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFleet, reachable, type Fleet } from "../scripts/fleet.js";

/** A running fleet on free ports over a fresh SQLite file, with a logged-in API client. */
export interface TestFleet {
  fleet: Fleet;
  apiUrl: string;
  mqttUrl: string;
  api: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** Starts `pnpm start`'s fleet as separate processes for an end-to-end test. */
export async function startTestFleet(extraEnv: Record<string, string> = {}): Promise<TestFleet> {
  const dataDir = mkdtempSync(join(tmpdir(), "e2e-"));
  const fleet = await startFleet({
    IOT_DATA_DIR: dataDir,
    IOT_DATABASE_URL: "",
    IOT_API_HOST: "127.0.0.1",
    IOT_API_PORT: "0",
    IOT_GRPC_PORT: "0",
    IOT_MQTT_PORT: "0",
    IOT_ADMIN_USERNAME: "admin",
    IOT_ADMIN_PASSWORD: "e2e-admin-pass",
    IOT_LOG_LEVEL: "warn",
    ...extraEnv,
  });
  const apiUrl = `${reachable(fleet.central.urls.api!)}/api/v1`;
  const mqttUrl = reachable(fleet.adapters.find((a) => a.name === "mqtt-adapter")!.urls.mqtt!);
  let token = "";
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const login = await api("POST", "/login", { username: "admin", password: "e2e-admin-pass" });
  if (login.status !== 201) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  token = login.body.token;
  return {
    fleet,
    apiUrl,
    mqttUrl,
    api,
    async close() {
      await fleet.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
