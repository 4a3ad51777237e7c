/**
 * Confirmable CoAP publishes end to end: `devices` devices, each on its own UDP socket, POST
 * `/mqtt/telemetry/<n>?c=&u=&p=` to the running fleet (CoAP adapter → gRPC → registry → SQLite, the 2.04 only after
 * the durable write), one confirmable request in flight per device (NSTART 1, RFC 7252 §4.7); then one device alone
 * in sequence. The baseline is a bare UDP echo in this process answering each request with its piggybacked 2.04 ACK
 * at once, taken by the same clients with the same datagrams in the same run.
 *
 *   pnpm bench:coap [devices=32] [requests=5000] [sequential=300] [warmUp=min(12 x requests, MAX_EXCHANGES + 10000)]
 *
 * The warm-up runs first, fleet and baseline alike, and is not measured: each device opens its session, the
 * processes' code is compiled by V8's optimizing tiers, and the adapter's duplicate cache fills up. Before a warm-up of
 * 10,000 the adapter's CPU per request was still falling over the first 20,000 requests (3.1 s per 10k in the first
 * 4,000, 1.2-1.4 from the 16,000th on; docs/performance.md, "How to measure"), so a short warm-up measured the JIT
 * more than the steady state. The cache remembers the last MAX_EXCHANGES requests, and an adapter under steady load
 * runs with it full, forgetting one message per message: passes that end before it is full leave that cost out
 * (44-60 µs a message after 100,000 before the cache's fix, 3b4a6fa). Then three load passes of each side,
 * alternated, and each side's median pass counts (`alternated` in closed-loop.ts).
 *
 * With BENCH_CPU_PROF_DIR set, the central node and the adapters write CPU profiles there (docs/performance.md).
 *
 * Goals (issue 19): at least 25% of the baseline's rate, p95 at most 20 ms, one device in sequence p50 at most 2 ms.
 * A request unanswered for 2 s is sent again (RFC 7252 ACK_TIMEOUT); the retransmissions are counted.
 */
import { createSocket, type Socket } from "node:dgram";
import { generate, parse } from "coap-packet";
import { MAX_EXCHANGES } from "@iot/adapter-coap";
import { alternated, benchFleet, report, type Side } from "./closed-loop.js";
import { positiveInt } from "./figures.js";
import type { TestDevice } from "../test/helpers.js";

const devices = positiveInt(process.argv[2], 32);
const total = positiveInt(process.argv[3], 5000);
const sequential = positiveInt(process.argv[4], 300);
const warmUp = Math.max(positiveInt(process.argv[5], Math.min(12 * total, MAX_EXCHANGES + 10_000)), devices * 5);
const payload = Buffer.from(JSON.stringify({ temperature: 21.5, humidity: 40, battery: 97, pressure: 1013 }));
const ACK_TIMEOUT_MS = 2000;

/** A device's socket sending confirmable POSTs to `port`, resolving each on its ACK (2.xx) and rejecting on others. */
async function deviceSocket(
  port: number,
  d: TestDevice,
  counter: { retransmissions: number },
): Promise<{ post: (i: number) => Promise<void>; socket: Socket }> {
  const socket = createSocket("udp4");
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", r));
  socket.connect(port, "127.0.0.1");
  await new Promise<void>((r) => socket.once("connect", r));
  const waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  socket.on("message", (msg) => {
    const p = parse(msg);
    const w = waiting.get(p.messageId);
    if (!w || p.ack !== true) return;
    waiting.delete(p.messageId);
    clearTimeout(w.timer);
    if (p.code.startsWith("2.")) w.resolve();
    else w.reject(new Error(`CoAP ${p.code}: ${p.payload.toString()}`));
  });
  const query = [`c=${d.deviceID}`, `u=${d.deviceUsername}`, `p=${d.token}`].map((q) => ({
    name: "Uri-Query" as const,
    value: Buffer.from(q),
  }));
  let mid = Math.floor(Math.random() * 60_000);
  const post = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const messageId = (mid = (mid + 1) & 0xffff);
      const datagram = generate({
        confirmable: true,
        code: "0.02",
        messageId,
        token: Buffer.from([i & 0xff, (i >> 8) & 0xff]),
        options: [
          { name: "Uri-Path", value: Buffer.from("mqtt") },
          { name: "Uri-Path", value: Buffer.from("telemetry") },
          { name: "Uri-Path", value: Buffer.from(String(i % 10)) },
          ...query,
        ],
        payload,
      });
      const resend = () => {
        counter.retransmissions++;
        socket.send(datagram);
        entry.timer = setTimeout(resend, ACK_TIMEOUT_MS);
      };
      const entry = { resolve, reject, timer: setTimeout(resend, ACK_TIMEOUT_MS) };
      waiting.set(messageId, entry);
      socket.send(datagram);
    });
  return { post, socket };
}

/** The devices' sockets to the CoAP endpoint at `port`, as one side of the benchmark. */
async function side(port: number, ds: TestDevice[]): Promise<Side & { retransmissions: number; close: () => void }> {
  const counter = { retransmissions: 0 };
  const clients = await Promise.all(ds.map((d) => deviceSocket(port, d, counter)));
  return {
    get retransmissions() {
      return counter.retransmissions;
    },
    clients: clients.length,
    send: (c, i) => clients[c]!.post(i),
    close: () => clients.forEach((c) => c.socket.close()),
  };
}

/** The bare baseline: answers every confirmable request with an empty-token-echoing piggybacked 2.04 at once. */
async function udpEcho(): Promise<{ port: number; close: () => void }> {
  const socket = createSocket("udp4");
  socket.on("message", (msg, from) => {
    const p = parse(msg);
    socket.send(generate({ ack: true, code: "2.04", messageId: p.messageId, token: p.token }), from.port, from.address);
  });
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", r));
  return { port: socket.address().port, close: () => socket.close() };
}

const { t, meter } = await benchFleet("coap-adapter");
try {
  const productID = (await t.api("POST", "/products", { productName: "bench coap", cloudProtocol: 2 })).body.productID;
  const ds: TestDevice[] = [];
  for (let i = 0; i < devices; i++) ds.push(await t.newDevice(productID, `bench-coap-${i}`));
  const echo = await udpEcho();
  const fleetSide = await side(Number(new URL(t.coapUrl).port), ds);
  const baseSide = await side(echo.port, ds);
  const { fleet, baseline } = await alternated(fleetSide, baseSide, { warmUp, total, sequential, cpu: meter });
  fleetSide.close();
  baseSide.close();
  echo.close();
  console.log(`warm-up before each measurement (fleet and baseline): ${warmUp} requests`);
  report(
    `${devices} CoAP devices x confirmable POST of ${payload.length} bytes, ${total} requests; then one device, ${sequential} in sequence`,
    fleet,
    { label: "bare UDP echo", ...baseline },
    { minRatio: 0.25, maxP95Ms: 20, maxSequentialP50Ms: 2 },
  );
  console.log(`retransmissions: fleet ${fleetSide.retransmissions}, baseline ${baseSide.retransmissions}`);
} finally {
  await t.close();
}
