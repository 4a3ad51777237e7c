/**
 * A load-generator process for bench/connections.ts: opens its share of MQTT connections at a paced rate, records
 * each CONNACK's latency, holds the connections until told to close, and reports over IPC. Several run at once
 * because one process may hold only as many sockets as its open-files limit allows.
 */
import type { Socket } from "node:net";
import { connectPacket, rawConnect, type RawCredentials } from "../test/raw-mqtt.js";

/** What the parent sends: connect these devices to these ports (round robin) at `rate` per second. */
export interface LoadOrder {
  ports: number[];
  credentials: RawCredentials[];
  rate: number;
}

/** What a generator answers once every device has its CONNACK (or failed). */
export interface LoadReport {
  latenciesMs: number[];
  /** When each device of `latenciesMs` sent its CONNECT, ms after the storm started (same order). */
  sentMs: number[];
  codes: Record<string, number>;
  seconds: number;
  /** CPU this generator used for its storm (user + system), ms: its start-up is not in it. */
  cpuMs: number;
}

const sockets: Socket[] = [];
/** A CONNECT unanswered this long counts as failed ("-1 timeout"), so one lost connection cannot hang the storm. */
const ANSWER_TIMEOUT_MS = 30_000;

async function run(order: LoadOrder): Promise<LoadReport> {
  const latenciesMs: number[] = [];
  const sentMs: number[] = [];
  const codes: Record<string, number> = {};
  // Built before the clock starts: the generator's own work per connect must stay small beside the broker's.
  const packets = order.credentials.map(connectPacket);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < order.credentials.length; i++) {
    // Pace by the clock, not by timers: device i starts at i / rate seconds, so timer drift never lowers the rate.
    const due = started + (i * 1000) / order.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const sent = performance.now();
    pending.push(
      rawConnect(order.ports[i % order.ports.length]!, packets[i]!, ANSWER_TIMEOUT_MS).then(
        ({ code, socket, error }) => {
          latenciesMs.push(performance.now() - sent);
          sentMs.push(sent - started);
          // A connection that ended without CONNACK counts under its socket error ("-1 ECONNRESET") when it had one.
          const key = error ? `${code} ${error}` : String(code);
          codes[key] = (codes[key] ?? 0) + 1;
          sockets.push(socket);
        },
      ),
    );
  }
  await Promise.all(pending);
  const cpu = process.cpuUsage(cpuBefore);
  return {
    latenciesMs,
    sentMs,
    codes,
    seconds: (performance.now() - started) / 1000,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

process.on("message", (m: { order?: LoadOrder; close?: true }) => {
  if (m.order) void run(m.order).then((report) => process.send!({ report }));
  if (m.close) {
    for (const s of sockets) s.destroy();
    process.send!({ closed: true }, undefined, undefined, () => process.exit(0));
  }
});
// Loaded: the parent sends every generator its order at once.
process.send!({ ready: true });
