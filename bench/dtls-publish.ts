/**
 * Part 2 of bench/dtls-handshakes.ts: `devices` devices publishing confirmable CoAP POSTs to `/mqtt/telemetry/<n>`
 * on the running fleet's CoAP adapter, over established DTLS PSK sessions (identity = the device's username, key =
 * its token) against plain CoAP (credentials in the query) to the same adapter, one request in flight per device
 * (NSTART 1), passes alternated as in bench/coap-publish.ts (closed-loop.ts). Goal (issue 45): the DTLS rate at least
 * 0.6 of the plain one, p95 at most 20 ms. Run on its own (the same part, without the handshake figures before it):
 *
 *   npx tsx bench/dtls-publish.ts [devices=32] [requests=3000] [warmUp=3000]
 */
import { createSocket } from "node:dgram";
import { generate, parse, type ParsedPacket } from "coap-packet";
import { DtlsPskClient } from "../test/dtls-psk-client.js";
import type { TestDevice } from "../test/helpers.js";
import { alternated, benchFleet, type Side, type SideResult } from "./closed-loop.js";
import { percentile, positiveInt } from "./figures.js";
import { printResult } from "./result.js";

const payload = Buffer.from(JSON.stringify({ temperature: 21.5, humidity: 40, battery: 97, pressure: 1013 }));
const ACK_TIMEOUT_MS = 2000;

/** How a device's datagrams travel: plain UDP or inside its DTLS session. */
interface Transport {
  send(datagram: Buffer): void;
  onMessage(listener: (datagram: Buffer) => void): void;
  close(): void;
}

async function plainTransport(port: number): Promise<Transport> {
  const socket = createSocket("udp4");
  await new Promise<void>((r) => socket.bind(0, "127.0.0.1", r));
  return {
    send: (d) => socket.send(d, port, "127.0.0.1"),
    onMessage: (l) => socket.on("message", l),
    close: () => socket.close(),
  };
}

async function dtlsTransport(port: number, d: TestDevice): Promise<Transport> {
  const c = await DtlsPskClient.connect("127.0.0.1", port, d.deviceUsername, Buffer.from(d.token, "utf8"));
  return { send: (x) => c.send(x), onMessage: (l) => c.onData(l), close: () => c.close() };
}

/** Confirmable POSTs over `t`, each resolved on its 2.xx ACK and sent again after ACK_TIMEOUT_MS unanswered. */
function poster(t: Transport, query: string[], counter: { retransmissions: number }): (i: number) => Promise<void> {
  const waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  t.onMessage((msg) => {
    let p: ParsedPacket;
    try {
      p = parse(msg);
    } catch {
      return;
    }
    const w = waiting.get(p.messageId);
    if (!w || p.ack !== true) return;
    waiting.delete(p.messageId);
    clearTimeout(w.timer);
    if (p.code.startsWith("2.")) w.resolve();
    else w.reject(new Error(`CoAP ${p.code}: ${p.payload.toString()}`));
  });
  const options = [
    ...["mqtt", "telemetry"].map((v) => ({ name: "Uri-Path" as const, value: Buffer.from(v) })),
    ...query.map((q) => ({ name: "Uri-Query" as const, value: Buffer.from(q) })),
  ];
  let mid = Math.floor(Math.random() * 60_000);
  return (i) =>
    new Promise<void>((resolve, reject) => {
      const messageId = (mid = (mid + 1) & 0xffff);
      const last = { name: "Uri-Path" as const, value: Buffer.from(String(i % 10)) };
      const datagram = generate({
        ...{ confirmable: true, code: "0.02", messageId, token: Buffer.from([i & 0xff, (i >> 8) & 0xff]) },
        ...{ options: [...options.slice(0, 2), last, ...options.slice(2)], payload },
      });
      const resend = () => {
        counter.retransmissions++;
        t.send(datagram);
        entry.timer = setTimeout(resend, ACK_TIMEOUT_MS);
      };
      const entry = { resolve, reject, timer: setTimeout(resend, ACK_TIMEOUT_MS) };
      waiting.set(messageId, entry);
      t.send(datagram);
    });
}

async function side(transports: Transport[], queries: string[][]) {
  const counter = { retransmissions: 0 };
  const posts = transports.map((t, i) => poster(t, queries[i]!, counter));
  const s: Side = { clients: posts.length, send: (c, i) => posts[c]!(i) };
  return { side: s, counter, close: () => transports.forEach((t) => t.close()) };
}

const ms = (x: number) => `${x.toFixed(2)} ms`;
const rate = (x: number) => `${Math.round(x).toLocaleString("en-US")}/s`;

function line(label: string, r: SideResult): void {
  console.log(
    `  ${label.padEnd(24)} ${rate(r.load.rate).padStart(8)}  p50 ${ms(percentile(r.load.latencies, 50))}  ` +
      `p95 ${ms(percentile(r.load.latencies, 95))}  p99 ${ms(percentile(r.load.latencies, 99))}  ` +
      `one in sequence p50 ${ms(percentile(r.sequential.latencies, 50))}  (passes ${r.rates.map(rate).join(", ")})`,
  );
}

export async function publishComparison(o: { devices: number; requests: number; warmUp: number }): Promise<void> {
  const { t } = await benchFleet("coap-adapter");
  try {
    const productID = (await t.api("POST", "/products", { productName: "bench dtls", cloudProtocol: 2 })).body
      .productID;
    const ds: TestDevice[] = [];
    for (let i = 0; i < o.devices; i++) ds.push(await t.newDevice(productID, `bench-dtls-${i}`));
    const coaps = Number(new URL(t.coapsUrl).port);
    const coap = Number(new URL(t.coapUrl).port);
    const dtls = await side(
      await Promise.all(ds.map((d) => dtlsTransport(coaps, d))),
      ds.map(() => []),
    );
    const plain = await side(
      await Promise.all(ds.map(() => plainTransport(coap))),
      ds.map((d) => [`c=${d.deviceID}`, `u=${d.deviceUsername}`, `p=${d.token}`]),
    );
    const warmUp = Math.max(o.warmUp, o.devices * 5);
    const r = await alternated(dtls.side, plain.side, { warmUp, total: o.requests, sequential: 200 });
    dtls.close();
    plain.close();
    const ratio = r.fleet.load.rate / r.baseline.load.rate;
    const p95 = percentile(r.fleet.load.latencies, 95);
    console.log(`${o.devices} devices x confirmable CoAP POST of ${payload.length} bytes, ${o.requests} requests:`);
    line("over DTLS (PSK, CCM_8)", r.fleet);
    line("plain CoAP", r.baseline);
    console.log(`  ratio DTLS/plain ${ratio.toFixed(2)} (goal ≥ 0.6), DTLS p95 ${ms(p95)} (goal ≤ 20 ms)`);
    console.log(`  retransmissions: DTLS ${dtls.counter.retransmissions}, plain ${plain.counter.retransmissions}`);
    const what = `${o.devices} CoAP devices publishing over DTLS sessions`;
    printResult({
      measure: `${what}: rate`,
      figure: rate(r.fleet.load.rate),
      baseline: `plain CoAP ${rate(r.baseline.load.rate)}`,
      ratio,
      goal: "ratio ≥ 0.6",
      met: ratio >= 0.6,
    });
    printResult({
      measure: `${what}: p95`,
      figure: ms(p95),
      baseline: "",
      ratio: null,
      goal: "≤ 20 ms",
      met: p95 <= 20,
    });
  } finally {
    await t.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await publishComparison({
    devices: positiveInt(process.argv[2], 32),
    requests: positiveInt(process.argv[3], 3000),
    warmUp: positiveInt(process.argv[4], 3000),
  });
}
