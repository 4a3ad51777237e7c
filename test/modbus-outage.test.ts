/**
 * The Modbus adapter keeps polling while the central node is away and replays the buffered values afterwards:
 * the central node is stopped for a few seconds under a polling adapter (a report of every value each second),
 * and the values read meanwhile are stored once it is back, with the times they were read.
 */
import type { ChildProcess } from "node:child_process";
import { quietFor } from "@iot/config/testing";
import { afterAll, expect, it } from "vitest";
import { stopProcess, type FleetProcess } from "../scripts/fleet.js";
import { freePort } from "./helpers.js";
import { startRestartableFleet, type RestartableFleet } from "./restartable-fleet.js";
import { modbusRecords, startModbusAdapter, startSlave, stopSlave, until } from "./modbus-slave.js";

let f: RestartableFleet | undefined;
let adapter: FleetProcess | undefined;
let slave: ChildProcess | undefined;

afterAll(async () => {
  if (adapter) await stopProcess(adapter);
  if (slave) await stopSlave(slave);
  await f?.close();
});

it("stores the values polled while the central node was down once it is back", async () => {
  f = await startRestartableFleet({}, []);
  const port = await freePort();
  slave = await startSlave(port, [4]);
  const { gateway, meters } = await modbusRecords((m, p, b) => f!.api(m, p, b), port, [4]);
  adapter = await startModbusAdapter(gateway, f.central.urls.grpc!.replace("0.0.0.0", "127.0.0.1"), {
    IOT_MODBUS_REPORT_EVERY: "1",
  });
  const meter = meters[4]!;
  const eventTimes = async () =>
    ((await f!.api("GET", `/devices/${meter.id}/events?_limit=1000`)).body.items as Array<{ msgTime: string }>).map(
      (e) => Date.parse(`${e.msgTime.replace(" ", "T")}Z`),
    );
  await until("a first stored value", async () => ((await eventTimes()).length > 0 ? true : undefined));

  await stopProcess(f.central);
  const down = Date.now();
  await quietFor(4_000, "the central node stays down while the adapter polls on");
  const up = Date.now();
  await f.startCentral();

  // Times are stored to the second: a value read while down is one stamped strictly inside the outage.
  const inside = (t: number) => t > down - 1000 && t < up;
  const during = await until(
    "the values read while down",
    async () => {
      const n = (await eventTimes()).filter(inside).length;
      return n >= 2 ? n : undefined;
    },
    30_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; adapter log: ${adapter!.errors.slice(-20).join("\n")}`);
  });
  expect(during).toBeGreaterThanOrEqual(2);
  expect(adapter.child.exitCode).toBeNull();
}, 90_000);
