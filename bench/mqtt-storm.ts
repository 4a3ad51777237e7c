/**
 * A reconnect storm: N devices send CONNECT at the same moment (as after a network or adapter outage) to the running
 * fleet, where each one is authenticated by the registry, marked online and logged; against the same storm on a
 * plain broker that authenticates nobody and stores nothing, measured in the same run on the same machine.
 *
 *   pnpm bench:storm [devices=10000] [baseline=mqtt://127.0.0.1:1883]
 *
 * Prints how many got CONNACK 0 (all of them must), the time until the last one did, the rate, the ratio to the
 * baseline, and whether the adapter's registry stream stayed up (its attach time did not change).
 */
import { createServer, type Server } from "node:net";
import { Aedes } from "aedes";
import { startTestFleet, type TestDevice } from "../test/helpers.js";
import { countCodes, rawConnect, type RawCredentials } from "../test/raw-mqtt.js";
import { printResult } from "./result.js";

const devices = Number(process.argv[2] ?? 10_000);
const baselineUrl = new URL(process.argv[3] ?? "mqtt://127.0.0.1:1883");
if (!Number.isSafeInteger(devices) || devices <= 0) throw new Error(`expected a device count, got ${process.argv[2]}`);

/** Every device connects at once; resolves with the CONNACK codes and the seconds until the last answer. */
async function storm(port: number, credentials: RawCredentials[]) {
  const started = performance.now();
  const results = await Promise.all(credentials.map((c) => rawConnect(port, c)));
  const seconds = (performance.now() - started) / 1000;
  for (const r of results) r.socket.destroy();
  return { codes: countCodes(results), seconds };
}

/** The baseline broker: the given address when it answers CONNACK 0, else bare aedes in this process. */
async function baselineBroker(): Promise<{ port: number; label: string; close: () => Promise<void> }> {
  const port = Number(baselineUrl.port || 1883);
  const probe = await rawConnect(port, { clientId: "bench-probe" });
  probe.socket.destroy();
  if (probe.code === 0) return { port, label: `broker at ${baselineUrl.href}`, close: async () => {} };
  const broker = await Aedes.createBroker();
  const server: Server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    label: "bare aedes (in process)",
    close: () => new Promise<void>((resolve) => server.close(() => broker.close(() => resolve()))),
  };
}

const t = await startTestFleet({ IOT_LOG_LEVEL: "error" });
try {
  const productID = (await t.api("POST", "/products", { productName: "storm", cloudProtocol: 1 })).body.productID;
  const created: TestDevice[] = [];
  const names = Array.from({ length: devices }, (_, i) => `storm-${i}`);
  const creating = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (let name = names.pop(); name; name = names.pop()) created.push(await t.newDevice(productID, name));
    }),
  );
  console.log(`created ${devices} devices in ${((performance.now() - creating) / 1000).toFixed(1)} s`);
  const attached = async () =>
    ((await t.api("GET", "/health")).body.adapters as { instance: string; protocol: number; attachedAt: string }[])
      .filter((a) => a.protocol === 1)
      .map((a) => `${a.instance}@${a.attachedAt}`)
      .join(",");
  const linkBefore = await attached();
  const port = Number(new URL(t.mqttUrl).port);
  const fleet = await storm(
    port,
    created.map((d) => ({ clientId: d.deviceID, username: d.deviceUsername, password: d.token })),
  );
  const linkKept = (await attached()) === linkBefore;

  const baseline = await baselineBroker();
  const base = await storm(
    baseline.port,
    created.map((_, i) => ({ clientId: `storm-baseline-${i}` })),
  );
  await baseline.close();

  const rate = (s: { seconds: number }) => devices / s.seconds;
  console.log(`${devices} devices sending CONNECT at once`);
  console.log(
    `fleet (auth by the registry, online state and connect log stored): CONNACK codes ${JSON.stringify(fleet.codes)}, ` +
      `last after ${fleet.seconds.toFixed(1)} s, ${rate(fleet).toFixed(0)} connects/s`,
  );
  console.log(`adapter's registry stream stayed up: ${linkKept ? "yes" : "NO"}`);
  console.log(
    `baseline (${baseline.label}): CONNACK codes ${JSON.stringify(base.codes)}, last after ${base.seconds.toFixed(1)} s, ` +
      `${rate(base).toFixed(0)} connects/s`,
  );
  console.log(`ratio fleet/baseline: ${(rate(fleet) / rate(base)).toFixed(2)}`);
  printResult({
    measure: `MQTT connect storm, ${devices} devices at once (authenticated)`,
    figure: `${rate(fleet).toFixed(0)} connects/s`,
    baseline: `${baseline.label} ${rate(base).toFixed(0)} connects/s`,
    ratio: rate(fleet) / rate(base),
    goal: "every CONNACK 0, registry stream kept",
    met: fleet.codes["0"] === devices && linkKept,
  });
  if (fleet.codes["0"] !== devices || !linkKept) process.exitCode = 1;
} finally {
  await t.close();
}
