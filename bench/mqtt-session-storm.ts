/**
 * A persistent-session reconnect storm: N devices, each with a stored session (clean session 0, subscribed to
 * `inbox` at QoS 1) and one command queued while it was away, send CONNECT (clean session 0) at the same moment.
 * Each must get CONNACK 0 with session present 1 and then its command, without subscribing again (the subscription is
 * restored from the registry's store). Compared with a clean-session storm of the same devices in the same run.
 *
 *   pnpm bench:sessions [devices=10000]
 *
 * A device refused with CONNACK 3 (the adapter's admission control, IOT_ADAPTER_AUTH_QUEUE_LIMIT, turns away what does
 * not fit its queue) tries again a second later, as devices do, in both storms; a storm's rate is its devices over the
 * time until the last one connected. Prints both rates and their ratio (goal ≥ 0.5), the refusals met on the way, how
 * many devices got session present 1, and how many commands arrived and how long after the storm began the last did.
 */
import { startTestFleet, type TestDevice } from "../test/helpers.js";
import { countCodes, rawConnect, rawDevice, rawResume } from "../test/raw-mqtt.js";
import { printResult } from "./result.js";

const devices = Number(process.argv[2] ?? 10_000);
if (!Number.isSafeInteger(devices) || devices <= 0) throw new Error(`expected a device count, got ${process.argv[2]}`);
/** A device still without its CONNACK or command this long after the storm began counts as failed. */
const TIMEOUT_MS = 300_000;
/** Devices set up (or commands issued) at once before the storm. */
const LANES = 32;

/** How long a refused device waits before it tries again, ms. */
const RETRY_MS = 1_000;

/** Tries `attempt` until it answers CONNACK 0, waiting RETRY_MS after each refusal; counts the refusals. */
async function untilAccepted<R extends { code: number }>(attempt: () => Promise<R>, refusals: number[]): Promise<R> {
  for (;;) {
    const r = await attempt();
    if (r.code === 0 || r.code === -1) return r;
    refusals.push(r.code);
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/** Runs `work` for every item, LANES at a time. */
async function inLanes<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

const t = await startTestFleet({ IOT_LOG_LEVEL: "error" });
try {
  const productID = (await t.api("POST", "/products", { productName: "sessions", cloudProtocol: 1 })).body.productID;
  const created: TestDevice[] = [];
  const creating = performance.now();
  await inLanes(
    Array.from({ length: devices }, (_, i) => `session-${i}`),
    async (name) => void created.push(await t.newDevice(productID, name)),
  );
  console.log(`created ${devices} devices in ${((performance.now() - creating) / 1000).toFixed(1)} s`);
  const port = Number(new URL(t.mqttUrl).port);
  const credentials = created.map((d) => ({ clientId: d.deviceID, username: d.deviceUsername, password: d.token }));

  // The clean-session storm first: a clean session drops a stored one, so it runs before the sessions exist.
  const cleanStarted = performance.now();
  const cleanRefusals: number[] = [];
  const clean = await Promise.all(
    credentials.map((c) => untilAccepted(() => rawConnect(port, c, TIMEOUT_MS), cleanRefusals)),
  );
  const cleanSeconds = (performance.now() - cleanStarted) / 1000;
  for (const r of clean) r.socket.destroy();
  const cleanCodes = countCodes(clean);

  // Each device takes a persistent session with a subscription, leaves, and gets a command while it is away.
  const preparing = performance.now();
  await inLanes(credentials, async (c) => {
    const device = await rawDevice(port, { ...c, clean: false }, ["inbox"], () => {});
    device.close();
  });
  // Commands are issued once the central node saw every session close (sessions on the MQTT adapter: 0).
  const sessions = async () =>
    ((await t.api("GET", "/health")).body.adapters as { protocol: number; sessions: number }[])
      .filter((a) => a.protocol === 1)
      .reduce((n, a) => n + a.sessions, 0);
  for (let i = 0; i < 600 && (await sessions()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
  await inLanes(created, async (d) => {
    const r = await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: `for ${d.deviceID}`, qos: 1 });
    if (r.status !== 201) throw new Error(`command for ${d.deviceID}: ${r.status} ${JSON.stringify(r.body)}`);
  });
  console.log(
    `stored ${devices} sessions and queued a command each in ${((performance.now() - preparing) / 1000).toFixed(1)} s`,
  );

  const started = performance.now();
  const refusals: number[] = [];
  const resumed = await Promise.all(
    credentials.map((c) => untilAccepted(() => rawResume(port, c, started, TIMEOUT_MS), refusals)),
  );
  const connected = resumed.filter((r) => r.code === 0);
  const connackSeconds = Math.max(...connected.map((r) => r.connackMs)) / 1000;
  const present = connected.filter((r) => r.present).length;
  const arrivals = resumed.flatMap((r) => (r.commandMs === undefined ? [] : [r.commandMs])).sort((a, b) => a - b);

  const rate = (n: number, seconds: number) => n / seconds;
  const cleanRate = rate(cleanCodes["0"] ?? 0, cleanSeconds);
  const sessionRate = rate(connected.length, connackSeconds);
  console.log(`${devices} devices sending CONNECT at once`);
  console.log(
    `clean session: CONNACK codes ${JSON.stringify(cleanCodes)} (refusals retried: ${cleanRefusals.length}), ` +
      `last after ${cleanSeconds.toFixed(1)} s, ${cleanRate.toFixed(0)} connects/s`,
  );
  console.log(
    `persistent session: CONNACK codes ${JSON.stringify(countCodes(resumed))} (refusals retried: ${refusals.length}), ` +
      `session present 1: ${present}, ` +
      `last CONNACK after ${connackSeconds.toFixed(1)} s, ${sessionRate.toFixed(0)} connects/s`,
  );
  console.log(
    `queued commands delivered without SUBSCRIBE: ${arrivals.length}/${devices}, p50 ` +
      `${((percentile(arrivals, 0.5) ?? 0) / 1000).toFixed(1)} s, last ${((arrivals.at(-1) ?? 0) / 1000).toFixed(1)} s`,
  );
  const ratio = sessionRate / cleanRate;
  console.log(`ratio persistent/clean connects/s: ${ratio.toFixed(2)}`);
  const met = connected.length === devices && present === devices && arrivals.length === devices && ratio >= 0.5;
  printResult({
    measure: `MQTT persistent-session reconnect storm, ${devices} devices with a stored subscription and a queued command`,
    figure: `${sessionRate.toFixed(0)} connects/s, ${arrivals.length}/${devices} commands delivered`,
    baseline: `clean-session storm ${cleanRate.toFixed(0)} connects/s`,
    ratio,
    goal: "every device connected with session present 1 and its command delivered; connects/s ≥ 0.5 × clean storm",
    met,
  });
  if (!met) process.exitCode = 1;
} finally {
  await t.close();
}
