/**
 * Modbus RTU end to end: the adapter's serial transport (modbus-serial over the `serialport` package) talks to a
 * real third-party slave, pymodbus (Debian python3-pymodbus), through a pty pair made by socat.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAdapterLogger, FakeRegistryClient } from "@iot/adapter-core";
import { configPayload, createModbusAdapter, ModbusSerialLink, tagEntry, type ModbusError } from "@iot/adapter-modbus";

const SLAVE_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "modbus-rtu-slave.py");
const UNIT = 5;
const logger = createAdapterLogger("modbus-rtu-test", "silent");
const children: ChildProcess[] = [];
let master = "";

/** Resolves with the first `count` matches of `pattern` in the lines of a child's stream. */
function linesMatching(stream: NodeJS.ReadableStream, pattern: RegExp, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const found: string[] = [];
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within 10 s (got ${found.length})`)), 10_000);
    createInterface({ input: stream }).on("line", (line) => {
      const m = pattern.exec(line);
      if (m && found.length < count && found.push(m[1] ?? m[0]) === count) {
        clearTimeout(timer);
        resolve(found);
      }
    });
  });
}

function start(command: string, args: string[]): ChildProcess {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return child;
}

beforeAll(async () => {
  const socat = start("socat", ["-d", "-d", "pty,raw,echo=0", "pty,raw,echo=0"]);
  const [a, b] = await linesMatching(socat.stderr!, /PTY is (\S+)/, 2);
  master = a!;
  const slave = start("/usr/bin/python3", [SLAVE_SCRIPT, b!, "19200", String(UNIT)]);
  await linesMatching(slave.stdout!, /^READY$/, 1);
});

afterAll(() => {
  for (const child of children.reverse()) child.kill();
});

const rtu = () => ({
  kind: "rtu" as const,
  path: master,
  baudRate: 19200,
  dataBits: 8 as const,
  parity: "none" as const,
  stopBits: 1 as const,
});

describe("Modbus RTU through a socat pty pair against pymodbus", () => {
  it("reads each area, writes with function codes 5, 6 and 16 and reads the writes back", async () => {
    const link = new ModbusSerialLink({ settings: rtu(), timeoutMs: 500, retries: 1, logger });
    try {
      expect(await link.read(UNIT, "holdingRegister", 0, 3)).toEqual([0x42f6, 0xe979, 7]);
      expect(await link.read(UNIT, "coil", 0, 3)).toEqual([true, false, true]);
      expect(await link.read(UNIT, "inputRegister", 0, 1)).toEqual([0xfffe]);
      await link.write(UNIT, { area: "holdingRegister", offset: 10, values: [1234] });
      await link.write(UNIT, { area: "holdingRegister", offset: 11, values: [0xabcd, 0x0102] });
      await link.write(UNIT, { area: "coil", offset: 1, values: [true] });
      expect(await link.read(UNIT, "holdingRegister", 10, 3)).toEqual([1234, 0xabcd, 0x0102]);
      expect(await link.read(UNIT, "coil", 0, 3)).toEqual([true, true, true]);
      const refused = await link.read(UNIT, "holdingRegister", 500, 2).catch((e: ModbusError) => e);
      expect(refused).toMatchObject({ code: "EXCEPTION", exception: { code: 2, name: "Illegal Data Address" } });
      const silent = await link.read(UNIT + 1, "holdingRegister", 0, 1).catch((e: ModbusError) => e);
      expect(silent).toMatchObject({ code: "TIMEOUT" });
      expect(await link.read(UNIT, "holdingRegister", 2, 1)).toEqual([7]);
    } finally {
      await link.close();
    }
  });

  it("polls the slave for its gateway and writes a command the slave confirms", async () => {
    const registry = new FakeRegistryClient({
      devices: [
        { deviceIntId: 100, deviceId: "gw", username: "gw", token: "t", isGateway: true },
        { deviceIntId: 5, deviceId: "meter", username: "meter", token: "-", gateway: "gw", modBusIndex: UNIT },
      ],
    });
    registry.start();
    const adapter = createModbusAdapter({
      registry,
      logger,
      gateway: { deviceId: "gw", username: "gw", token: "t" },
      reportEverySeconds: 60,
    });
    const values = () => registry.uplinks.map((u) => JSON.parse(new TextDecoder().decode(u.payload)));
    const until = (check: () => boolean) =>
      vi.waitFor(
        () => {
          if (!check()) throw new Error(`not within 10 s; uplinks ${JSON.stringify(values())}`);
        },
        { timeout: 10_000, interval: 20 },
      );
    try {
      await adapter.start();
      const channel = {
        chntype: "rtu",
        chndrv: "modbus-rtu",
        ttycom: master,
        ttybaud: 19200,
        ttydata: 8,
        ttypari: "none",
        ttystop: 1,
        timeout: 1000,
        retries: 1,
        pollInterval: 200,
        device: [
          tagEntry("meter", UNIT, "power", "400001", 25),
          tagEntry("meter", UNIT, "level", "300001", 15),
          tagEntry("meter", UNIT, "relay", "000001", 23),
          tagEntry("meter", UNIT, "limit", "400021", 16, { tagattr: "RW" }),
        ],
      };
      const applied = await registry.pushDownlink({
        deviceIntId: 100,
        topic: "config/modbus",
        payload: configPayload(channel),
      });
      expect(applied).toEqual({ status: "DELIVERED" });
      await until(() => values().length > 0);
      expect(values()[0]).toEqual({ power: 123.456, level: -2, relay: true, limit: 0 });
      expect(registry.liveSessions().find((s) => s.session.device.deviceIntId === 5)?.info.clientIp).toBe(master);
      const command = new TextEncoder().encode(JSON.stringify({ limit: 42 }));
      expect(await registry.pushDownlink({ deviceIntId: 5, payload: command })).toEqual({ status: "DELIVERED" });
      await until(() => values().some((v) => v.limit === 42));
    } finally {
      await adapter.close();
      await registry.close();
    }
  });
});
