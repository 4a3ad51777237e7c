/**
 * The open-loop load of bench:mqtt's latency passes: devices publishing QoS 1 at a set rate, paced every 10 ms, with
 * each PUBACK's latency, a p99 per half second and what the fleet left unanswered; and one device publishing in
 * sequence. Apart from the throughput passes (mqtt-load.ts), which publish as fast as the window lets them.
 */
import type { MqttClient } from "mqtt";
import { monotonicUs, percentile } from "./figures.js";
import { TELEMETRY as payload } from "./mqtt-load.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The pass at 80 %: PUBACK latencies (ms), PUBLISHes the fleet never answered, and devices it disconnected. */
export interface PacedPass {
  latencies: number[];
  timeline: string[];
  window: string;
  unanswered: number;
  closed: number;
}

/** The topics the paced passes publish to, made once rather than per PUBLISH. */
const TOPICS = Array.from({ length: 10 }, (_, i) => `telemetry/${i}`);
const QOS1 = { qos: 1 } as const;

/**
 * PUBACK latencies (ms) of every client publishing at `rate` msg/s in all, paced every 10 ms, for `seconds`: an open
 * loop, so a stall of the fleet piles up PUBLISHes awaiting their PUBACK. A device the fleet disconnects meanwhile
 * (an adapter whose uplink buffer is full closes it) leaves its PUBLISHes unanswered: each counts as lost (an
 * infinite latency) instead of being waited for, which would hang the run.
 *
 * The generator measures its own pauses too, so it keeps its garbage small: one callback per PUBLISH and typed arrays
 * sized for the pass. It used to keep four promises per PUBLISH alive until the end of the pass; its scavenges then
 * took 600–700 ms of each 5 s pass, single pauses up to 20 ms and event-loop lags up to 157 ms (a scratch preload
 * timing GC and lags in every process), and each of them showed as the fleet's latency.
 */
export async function paced(clients: MqttClient[], rate: number, seconds: number): Promise<PacedPass> {
  const total = Math.floor(rate * seconds);
  const sentAt = new Float64Array(total);
  const latency = new Float64Array(total);
  const pending = new Map(clients.map((c) => [c, new Set<number>()]));
  let open = 0;
  let sending = true;
  let unanswered = 0;
  let allAnswered = () => {};
  const answered = new Promise<void>((resolve) => (allAnswered = resolve));
  const settle = (c: MqttClient, i: number, ms: number) => {
    if (!pending.get(c)!.delete(i)) return;
    latency[i] = ms;
    if (ms === Infinity) unanswered++;
    if (--open === 0 && !sending) allAnswered();
  };
  const onClose = new Map(
    clients.map((c) => [c, () => [...pending.get(c)!].forEach((i) => settle(c, i, Infinity))] as const),
  );
  for (const [c, lose] of onClose) c.on("close", lose);
  const startedUs = monotonicUs();
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; sent < due; sent++) {
      const i = sent;
      const c = clients[i % clients.length]!;
      sentAt[i] = performance.now();
      if (!c.connected) {
        latency[i] = Infinity;
        unanswered++;
        continue;
      }
      open++;
      pending.get(c)!.add(i);
      c.publish(TOPICS[i % TOPICS.length]!, payload, QOS1, (err) =>
        settle(c, i, err ? Infinity : performance.now() - sentAt[i]!),
      );
    }
    await sleep(10);
  }
  sending = false;
  if (open > 0) await answered;
  for (const [c, lose] of onClose) c.off("close", lose);
  const latencies = Array.from(latency.subarray(0, sent));
  // By the half second each PUBLISH went out in: a pause of one process shows as one bad slice, a queue as a rise.
  const bySlice: number[][] = [];
  for (let i = 0; i < sent; i++) (bySlice[Math.floor((sentAt[i]! - started) / 500)] ??= []).push(latencies[i]!);
  const timeline = Array.from(bySlice, (l = []) => percentile(l, 99).toFixed(0));
  const closed = clients.filter((c) => !c.connected).length;
  return { latencies, timeline, window: `--from=${startedUs} --to=${monotonicUs()}`, unanswered, closed };
}

/** What the pass at 80 % lost, for its line: nothing, or the PUBLISHes left unanswered and the devices closed. */
export const lossNote = (p: PacedPass) =>
  p.unanswered === 0
    ? ""
    : `; ${p.unanswered} PUBLISHes unanswered, ${p.closed} devices disconnected by the fleet (an uplink buffer full?)`;

/** PUBACK latencies (ms) of one client publishing `n` messages one after the other. */
export async function sequential(client: MqttClient, n: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = performance.now();
    await client.publishAsync(`telemetry/${i % 10}`, payload, { qos: 1 });
    latencies.push(performance.now() - at);
  }
  return latencies;
}

/** "p50 … ms, p99 … ms" of a paced pass, with its half seconds, window and losses. */
export const pacedNote = (p: PacedPass) =>
  `p50 ${percentile(p.latencies, 50).toFixed(2)} ms, p99 ${percentile(p.latencies, 99).toFixed(2)} ms ` +
  `(by half second ${p.timeline.join(" ")}; window ${p.window})${lossNote(p)}`;
