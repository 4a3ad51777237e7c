/** Test support for the Modbus end-to-end tests: the pymodbus TCP slave process and a polling wait. */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { vi } from "vitest";
import { join } from "node:path";
import { startProcess, type FleetProcess } from "../scripts/fleet.js";
const PYTHON = "/usr/bin/python3"; // Debian's, which has python3-pymodbus (not a pyenv shim)

/** Starts the pymodbus slave answering `units` on `port`; resolves once it listens (rejects with its stderr). */
export async function startSlave(port: number, units: number[]): Promise<ChildProcess> {
  const child = spawn(
    PYTHON,
    [join(import.meta.dirname, "fixtures", "modbus-tcp-slave.py"), String(port), units.join(",")],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const lines = createInterface({ input: child.stdout });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr = (stderr + b.toString()).slice(-2000)));
  await new Promise<void>((resolve, reject) => {
    lines.on("line", (l) => l === "READY" && resolve());
    child.once("exit", (code) => reject(new Error(`pymodbus slave exited with ${code}: ${stderr}`)));
  });
  return child;
}

export async function stopSlave(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

/** Polls `probe` every 100 ms until it answers something other than undefined (fails after `ms`). */
export function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  return vi.waitFor(
    async () => {
      const v = await probe();
      if (v === undefined) throw new Error(`timed out waiting for ${what}`);
      return v;
    },
    { timeout: ms, interval: 100 },
  );
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** What `modbusRecords` created. */
export interface ModbusRecords {
  productID: string;
  gateway: { id: number; deviceID: string; deviceUsername: string; token: string };
  /** The slaves by unit id. */
  meters: Record<number, { id: number; deviceID: string }>;
}

/**
 * Creates through the REST API a Modbus product with five float points matching the slave fixture (temp and ref in
 * input registers, setpoint in a holding register with limits 10–90, pump a coil, and far beyond the slave's
 * registers, which answers exception 2), a Modbus gateway polling the slave at `port` every 300 ms, and one slave
 * device per unit.
 */
export async function modbusRecords(api: Api, port: number, units: number[]): Promise<ModbusRecords> {
  const ok = async (method: string, path: string, body: unknown) => {
    const r = await api(method, path, body);
    if (r.status !== 201) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const productID = (await ok("POST", "/products", { productName: "Meters", cloudProtocol: 7 })).productID as string;
  const point = (dataPointID: string, extra: Record<string, unknown>) =>
    ok("POST", "/data_points", {
      productID,
      dataPointName: dataPointID,
      dataPointID,
      pointDataType: 25,
      dataTransType: 3,
      ...extra,
    });
  await point("temp", { registerAddr: "300001", dataTransType: 1 });
  await point("ref", { registerAddr: "300003", dataTransType: 1 });
  await point("setpoint", { registerAddr: "400010", upperLimit: 90, lowerLimit: 10 });
  await point("pump", { registerAddr: "000001", pointDataType: 23, binarySize: 0 });
  await point("far", { registerAddr: "400200" });
  const edge = (await ok("POST", "/products", { productName: "Edge", cloudProtocol: 7 })).productID as string;
  const gateway = await ok("POST", "/gateways", {
    productID: edge,
    gatewayName: "boiler room",
    gatewayProtocol: 7,
    authType: 1,
    channel: { chntype: "tcp", tcphost: "127.0.0.1", tcpport: port, pollInterval: 300, timeout: 300 },
  });
  const meters: ModbusRecords["meters"] = {};
  for (const unit of units)
    meters[unit] = await ok("POST", "/devices", {
      productID,
      deviceName: `meter ${unit}`,
      upLinkSystem: 2,
      gateway: gateway.id,
      modBusIndex: unit,
      authType: 1,
    });
  return { productID, gateway, meters };
}

/** Starts the Modbus adapter process for the gateway against the registry at `registryUrl`. */
export function startModbusAdapter(
  gateway: ModbusRecords["gateway"],
  registryUrl: string,
  env: Record<string, string> = {},
): Promise<FleetProcess> {
  return startProcess("modbus-adapter", "packages/adapters/modbus/src/main.ts", {
    IOT_REGISTRY_URL: registryUrl,
    IOT_MODBUS_GATEWAY_ID: gateway.deviceID,
    IOT_MODBUS_GATEWAY_USERNAME: gateway.deviceUsername,
    IOT_MODBUS_GATEWAY_TOKEN: gateway.token,
    IOT_LOG_LEVEL: "warn",
    ...env,
  });
}
