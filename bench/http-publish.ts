/**
 * HTTP device publishes end to end: `clients` devices, each on one keep-alive connection, POST
 * `/topics/telemetry/<n>` with Basic credentials to the running fleet (HTTP adapter → gRPC → registry → SQLite, the
 * 204 only after the durable write), one request after another per device; then one device alone in sequence.
 * The baseline is a bare node:http server in this process answering the same requests 204 once their body is read,
 * taken by the same clients in the same run.
 *
 *   pnpm bench:http [devices=32] [requests=5000] [sequential=300] [warmUp=min(2 x requests, 10000)]
 *
 * The warm-up runs first, fleet and baseline alike, and is not measured: each device opens its session, and the
 * processes' code is compiled by V8's optimizing tiers. Before a warm-up of this size, the adapter's CPU per request
 * was still falling over the first 20,000 requests (3.1 s per 10k in the first 4,000, 1.2-1.4 from the 16,000th on;
 * docs/performance.md, "How to measure"), so a short warm-up measured the JIT more than the steady state. Then three
 * load passes of each side, alternated, and each side's median pass counts (`alternated` in closed-loop.ts).
 *
 * With BENCH_CPU_PROF_DIR set, the central node and the adapters write CPU profiles there (docs/performance.md).
 *
 * Goals (issue 19): at least 25% of the baseline's rate, p95 at most 20 ms, one device in sequence p50 at most 2 ms.
 */
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { alternated, benchFleet, report, type Side } from "./closed-loop.js";
import { positiveInt } from "./figures.js";

const devices = positiveInt(process.argv[2], 32);
const total = positiveInt(process.argv[3], 5000);
const sequential = positiveInt(process.argv[4], 300);
const warmUp = Math.max(positiveInt(process.argv[5], Math.min(2 * total, 10_000)), devices * 5);
const body = Buffer.from(JSON.stringify({ temperature: 21.5, humidity: 40, battery: 97, pressure: 1013 }));

/** One keep-alive connection per device, so each device's requests go one after another as a device's do. */
function devicePost(base: string, authorization: string): (path: string) => Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(base);
  return (path) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path,
          method: "POST",
          headers: { authorization, "content-type": "application/json", "content-length": body.length },
        },
        (res) => {
          res.resume();
          res.on("end", () => (res.statusCode === 204 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
}

/** One keep-alive connection per device to the server at `base`, as one side of the benchmark. */
function side(base: string, auth: string[]): Side {
  const posts = auth.map((a) => devicePost(base, a));
  return { clients: posts.length, send: (c, i) => posts[c]!(`/topics/telemetry/${i % 10}`) };
}

const { t, meter } = await benchFleet("http-adapter");
try {
  const productID = (await t.api("POST", "/products", { productName: "bench http", cloudProtocol: 5 })).body.productID;
  const auth: string[] = [];
  for (let i = 0; i < devices; i++) {
    const d = await t.newDevice(productID, `bench-http-${i}`);
    auth.push(`Basic ${Buffer.from(`${d.deviceUsername}:${d.token}`).toString("base64")}`);
  }
  const bare = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  bare.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r));
  const { fleet, baseline } = await alternated(
    side(t.httpUrl, auth),
    side(`http://127.0.0.1:${(bare.address() as AddressInfo).port}`, auth),
    { warmUp, total, sequential, cpu: meter },
  );
  bare.closeAllConnections();
  await new Promise<void>((r) => bare.close(() => r()));

  console.log(`warm-up before each measurement (fleet and baseline): ${warmUp} requests`);
  report(
    `${devices} HTTP devices x keep-alive POST of ${body.length} bytes, ${total} requests; then one device, ${sequential} in sequence`,
    fleet,
    { label: "bare node:http", ...baseline },
    { minRatio: 0.25, maxP95Ms: 20, maxSequentialP50Ms: 2 },
  );
} finally {
  await t.close();
}
