import { vi } from "vitest";
import pino from "pino";
import { FakeRegistryClient, type FakeDevice, type DownlinkOutcome } from "@iot/adapter-core";
import { configPayload } from "./channel-fixture.js";
import { MemorySlave } from "./memory-slave.js";
import { createModbusAdapter, type ModbusAdapter, type ModbusAdapterOptions } from "./modbus-adapter.js";

/** The gateway of the harness (deviceIntId 100). */
export const GATEWAY: FakeDevice = {
  deviceIntId: 100,
  deviceId: "gw-1",
  username: "gw-user",
  token: "gw-token",
  isGateway: true,
};

/** A Modbus device of the harness gateway with modBusIndex `index`. */
export function modbusDevice(deviceIntId: number, deviceId: string, index: number): FakeDevice {
  return { deviceIntId, deviceId, username: `${deviceId}-user`, token: "-", gateway: "gw-1", modBusIndex: index };
}

/**
 * An adapter under test: the fake registry (gateway 100, "boiler" 1 at unit 1, "pump" 2 at unit 2), a MemorySlave
 * answering units 1 and 2, every log line captured, and helpers to push configuration and commands.
 */
export class AdapterHarness {
  readonly logs: Record<string, unknown>[] = [];
  adapter!: ModbusAdapter;

  private constructor(
    readonly registry: FakeRegistryClient,
    readonly slave: MemorySlave,
  ) {}

  static async start(
    options: Partial<ModbusAdapterOptions> & { bufferLimit?: number; login?: boolean } = {},
  ): Promise<AdapterHarness> {
    const registry = new FakeRegistryClient({
      devices: [GATEWAY, modbusDevice(1, "boiler", 1), modbusDevice(2, "pump", 2)],
      ...(options.bufferLimit === undefined ? {} : { bufferLimit: options.bufferLimit }),
    });
    registry.start();
    const h = new AdapterHarness(registry, await MemorySlave.start([1, 2]));
    h.adapter = createModbusAdapter({
      registry,
      logger: pino({ level: "debug" }, { write: (line: string) => h.logs.push(JSON.parse(line)) }),
      gateway: { deviceId: "gw-1", username: "gw-user", token: "gw-token" },
      reportEverySeconds: 60,
      gatewayBackoff: { initialMs: 10, maxMs: 20 },
      slaveBackoffMs: 20,
      ...options,
    });
    if (options.login !== false) await h.adapter.start();
    return h;
  }

  /** Pushes a configuration of these channels to the gateway, as the registry does. */
  push(...channels: unknown[]): Promise<DownlinkOutcome> {
    return this.command(GATEWAY.deviceIntId, "config/modbus", configPayload(...channels));
  }

  /** Sends a command to a device, as the registry does. */
  command(deviceIntId: number, topic: string, payload: unknown): Promise<DownlinkOutcome> {
    const bytes = payload instanceof Uint8Array ? payload : new TextEncoder().encode(JSON.stringify(payload));
    return this.registry.pushDownlink({ deviceIntId, topic, payload: bytes });
  }

  /** The values of every uplink of device `deviceIntId`, in order. */
  values(deviceIntId: number): Record<string, unknown>[] {
    return this.registry.uplinks
      .filter((u) => u.deviceIntId === deviceIntId)
      .map((u) => JSON.parse(new TextDecoder().decode(u.payload)) as Record<string, unknown>);
  }

  /** Session events of device `deviceIntId`, as [type, reason or clientIp]. */
  sessionEvents(deviceIntId: number): [string, string][] {
    return this.registry.events
      .filter((e) => e.session.device.deviceIntId === deviceIntId)
      .flatMap((e): [string, string][] =>
        e.type === "opened" ? [["opened", e.info.clientIp]] : e.type === "closed" ? [["closed", e.reason]] : [],
      );
  }

  /** Waits until `check` holds (checked every 5 ms), failing after `ms`. */
  async until(check: () => boolean, ms = 3000): Promise<void> {
    await vi.waitFor(
      () => {
        if (!check()) throw new Error(`condition not met within ${ms} ms`);
      },
      { timeout: ms, interval: 5 },
    );
  }

  async stop(): Promise<void> {
    await this.adapter.close();
    await this.registry.close();
    await this.slave.stop();
  }
}
