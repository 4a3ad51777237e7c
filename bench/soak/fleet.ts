/**
 * The soak's fleet: the central node and every adapter as separate processes on one SQLite file, or two central
 * nodes on a PostgreSQL database made for the run (test/restartable-fleet.ts, every port fixed so a restarted process
 * is found where it was), a process of Modbus TCP slaves (bench/modbus-slaves.ts), and the supervisor that kill -9s
 * one of them and starts it again as an operator's would.
 */
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createDatabaseOn } from "@iot/registry/test-engines";
import { reachable, type FleetProcess } from "../../scripts/fleet.js";
import { freePorts } from "../../test/helpers.js";
import { killHard, startRestartableFleet, type RestartableFleet } from "../../test/restartable-fleet.js";
import type { SoakPlan } from "./settings.js";
import { postgresStore, sqliteStore, type SoakStore } from "./store.js";

/** The adapters started with the central node; the Modbus one follows once its gateway exists. */
const ADAPTER_NAMES = ["mqtt-adapter", "http-adapter", "coap-adapter", "lwm2m-adapter", "lorawan-adapter"];

export interface SoakFleet {
  readonly f: RestartableFleet;
  readonly coapsUrl: string;
  readonly loraPort: number;
  readonly apiBase: string;
  /** What the fleet stored, for the checks (close it when done). */
  openStore(): Promise<SoakStore>;
  /** Every process by name (the latest of each): its pid and where its metrics are served. */
  processes(): { name: string; pid: number | undefined; metricsUrl: string | undefined }[];
  /** Starts the Modbus adapter for `gateway` (again after a kill with the same settings). */
  startModbus(env: Record<string, string>): Promise<void>;
  /** The port of the Modbus TCP slaves' process. */
  readonly modbusPort: number;
  /** kill -9 of the named process, then started again; answers how long it was away, ms. */
  killAndRestart(name: string): Promise<number>;
  close(): Promise<void>;
}

/** Starts the slaves of bench/modbus-slaves.ts (`units` units, 3 holding registers each) in a child process. */
async function startSlaves(units: number): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(import.meta.dirname, "..", "modbus-slaves.ts"), [String(units), "3"], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: ["--import", "tsx"],
  });
  const [m] = (await once(child, "message")) as [{ type: string; port: number }];
  return { child, port: m.port };
}

export async function startSoakFleet(plan: SoakPlan): Promise<SoakFleet> {
  const [api, coaps, lora] = await freePorts(3);
  const database = plan.databaseUrl ? await createDatabaseOn(plan.databaseUrl) : undefined;
  const f = await startRestartableFleet(
    {
      ...(database ? { IOT_DATABASE_URL: database.url } : {}),
      IOT_API_PORT: String(api),
      IOT_COAPS_PORT: String(coaps),
      IOT_LORA_UDP_PORT: String(lora),
      IOT_LORA_DEV_STATUS_EVERY: "0",
      IOT_MQTT_METRICS_PORT: "0",
      IOT_HTTP_METRICS_PORT: "0",
      IOT_COAP_METRICS_PORT: "0",
      IOT_LWM2M_METRICS_PORT: "0",
      IOT_LORAWAN_METRICS_PORT: "0",
      IOT_MODBUS_METRICS_PORT: "0",
      IOT_WEBHOOK_ALLOW_PRIVATE: "true",
      IOT_WEBHOOK_RETRY_BASE_MS: "200",
      IOT_COMMAND_TTL: String(plan.commandTtlS),
      IOT_LWM2M_QUEUE_AWAKE: "2",
      IOT_LOG_LEVEL: "error",
    },
    ADAPTER_NAMES,
    database ? 2 : 1,
  );
  const slaves = await startSlaves(plan.modbusSlaves);
  let modbusEnv: Record<string, string> | undefined;
  const apiBase = `${reachable(f.central.urls.api!)}`;
  const startModbus = async (env: Record<string, string>) => {
    modbusEnv = env;
    await f.startAdapter("modbus-adapter", env);
  };
  return {
    f,
    coapsUrl: `coaps://127.0.0.1:${coaps}`,
    loraPort: lora!,
    apiBase,
    openStore: () =>
      database ? postgresStore(database.url) : Promise.resolve(sqliteStore(join(f.settings.IOT_DATA_DIR!, "iot.db"))),
    modbusPort: slaves.port,
    startModbus,
    processes: () => [
      ...f.centrals.map((c) => ({ name: c.name, pid: c.child.pid, metricsUrl: `${reachable(c.urls.api!)}/metrics` })),
      ...[...f.adapters.values()].map((p: FleetProcess) => ({
        name: p.name,
        pid: p.child.pid,
        metricsUrl: p.urls.metrics ? reachable(p.urls.metrics) : undefined,
      })),
    ],
    async killAndRestart(name) {
      const started = performance.now();
      const node = f.centrals.findIndex((c) => c.name === name);
      if (node >= 0) {
        await killHard(f.centrals[node]!);
        await f.startCentral(node);
      } else {
        await killHard(f.adapters.get(name)!);
        await f.startAdapter(name, name === "modbus-adapter" ? modbusEnv : {});
      }
      return performance.now() - started;
    },
    async close() {
      slaves.child.disconnect();
      await f.close();
      await database?.drop();
    },
  };
}
