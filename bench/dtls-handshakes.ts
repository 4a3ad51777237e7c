/**
 * DTLS speed, each figure beside a baseline taken in the same run:
 *
 * 1. Full handshakes per second, PSK (TLS_PSK_WITH_AES_128_CCM_8) and certificate (ECDHE-ECDSA AES-128-GCM, mutual),
 *    against our DtlsServer in a process of its own (bench/dtls-handshake-server.ts) and against OpenSSL's
 *    `openssl s_server -dtls1_2` on loopback, by the same client (bench/dtls-bench-client.ts: the dtls package's
 *    test-kit client; spawning s_client per handshake would measure process start-up). s_server serves one
 *    connection at a time, so the comparison is one client in sequence, each handshake with its cookie exchange and
 *    ended with close_notify; passes alternate between the servers and each one's median counts. Our server is then
 *    also driven by `concurrent` clients at once (no OpenSSL figure: s_server cannot).
 * 2. 32 devices publishing confirmable CoAP POSTs over established DTLS (PSK) sessions to the running fleet's CoAP
 *    adapter, against the same devices publishing over plain CoAP to the same adapter (closed-loop.ts's alternated
 *    passes). Goal (issue 45): at least 0.6 of the plain rate, p95 at most 20 ms.
 *
 *   pnpm bench:dtls-handshakes [handshakes=300] [concurrent=8] [devices=32] [requests=3000] [warmUp=3000]
 *
 * On a shared machine the figures move with the other load; the ratios, taken in the same run, move less.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { createTestCa } from "../packages/dtls/src/pki.test-kit.js";
import { type HandshakeKind, HandshakeClient } from "./dtls-bench-client.js";
import { publishComparison } from "./dtls-publish.js";
import { positiveInt } from "./figures.js";
import { printResult } from "./result.js";

const handshakes = positiveInt(process.argv[2], 300);
const concurrent = positiveInt(process.argv[3], 8);
const devices = positiveInt(process.argv[4], 32);
const requests = positiveInt(process.argv[5], 3000);
const warmUp = positiveInt(process.argv[6], 3000);
const PSK_HEX = "00112233445566778899aabbccddeeff";
const PASSES = 3;

const children: ChildProcess[] = [];

/** A free UDP port on loopback for s_server (bound, read and released). */
async function freePort(): Promise<number> {
  const s = createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", r));
  const port = s.address().port;
  s.close();
  return port;
}

async function ourServer(args: string[]): Promise<number> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/dtls-handshake-server.ts", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  for await (const line of createInterface({ input: child.stdout })) {
    const m = /^port (\d+)$/.exec(line);
    if (m) return Number(m[1]);
  }
  throw new Error("our DTLS server did not start");
}

async function opensslServer(args: string[]): Promise<number> {
  const port = await freePort();
  // -mtu 1200: records as large as ours (its default on loopback cut the certificate flight into 228-byte datagrams).
  const child = spawn(
    "openssl",
    ["s_server", "-dtls1_2", "-accept", `127.0.0.1:${port}`, "-quiet", "-mtu", "1200", ...args],
    {
      stdio: ["pipe", "ignore", "ignore"],
    },
  );
  children.push(child);
  return port; // the first (warm-up) handshake's ClientHello is sent again until s_server reads it
}

/** `total` handshakes by the clients at once; handshakes per second. */
async function run(cs: HandshakeClient[], total: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    cs.map(async (c) => {
      while (next++ < total) await c.handshake();
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const perSecond = (x: number) => `${Math.round(x).toLocaleString("en-US")}/s`;

/**
 * One client socket per server for the whole comparison: s_server takes the first client's address as its peer and
 * hears no other port afterwards.
 */
async function compare(label: string, how: HandshakeKind, ours: number, theirs: number): Promise<void> {
  const [oursClient, theirsClient] = [await HandshakeClient.open(ours, how), await HandshakeClient.open(theirs, how)];
  const warm = Math.max(10, Math.floor(handshakes / 10));
  await run([oursClient], warm);
  await run([theirsClient], warm);
  const rates: [number[], number[]] = [[], []];
  for (let p = 0; p < PASSES; p++) {
    rates[0].push(await run([oursClient], handshakes));
    rates[1].push(await run([theirsClient], handshakes));
  }
  const [o, t] = [median(rates[0]), median(rates[1])];
  const many = await Promise.all(Array.from({ length: concurrent }, () => HandshakeClient.open(ours, how)));
  const parallel = await run(many, handshakes * 2);
  for (const c of [oursClient, theirsClient, ...many]) c.close();
  const resends = `resent datagrams: ours ${oursClient.resends}, openssl ${theirsClient.resends}`;
  console.log(`${label}, ${handshakes} full handshakes per pass, one client in sequence (median of ${PASSES}):`);
  console.log(`  ours            ${perSecond(o).padStart(8)}   (passes ${rates[0].map(perSecond).join(", ")})`);
  console.log(`  openssl s_server ${perSecond(t).padStart(7)}   (passes ${rates[1].map(perSecond).join(", ")})`);
  console.log(`  ours, ${concurrent} clients at once: ${perSecond(parallel)}; ${resends}`);
  printResult({
    measure: `${label} full handshakes/s, one client in sequence`,
    figure: perSecond(o),
    baseline: `openssl s_server ${perSecond(t)}`,
    ratio: o / t,
    goal: "",
    met: null,
  });
  printResult({
    measure: `${label} full handshakes/s, ${concurrent} clients at once (ours)`,
    figure: perSecond(parallel),
    baseline: "",
    ratio: null,
    goal: "",
    met: null,
  });
}

const ca = createTestCa("bench DTLS CA");
try {
  const server = ca.issue("bench-dtls-server", "IP:127.0.0.1");
  const device = ca.issue("bench-dtls-device");
  const psk: HandshakeKind = { kind: "psk", identity: "bench-device", key: Buffer.from(PSK_HEX, "hex") };
  await compare(
    "PSK (TLS_PSK_WITH_AES_128_CCM_8)",
    psk,
    await ourServer(["psk", PSK_HEX]),
    await opensslServer(["-nocert", "-psk", PSK_HEX, "-cipher", "PSK-AES128-CCM8"]),
  );
  const certificates = ["-cert", server.certFile, "-key", server.keyFile, "-Verify", "1", "-CAfile", ca.caFile];
  await compare(
    "ECDHE-ECDSA (TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, mutual)",
    { kind: "ecdhe", certPem: device.certPem, keyPem: device.keyPem },
    await ourServer(["ecdhe", server.certFile, server.keyFile, ca.caFile]),
    await opensslServer([...certificates, "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"]),
  );
  for (const c of children.splice(0)) c.kill();
  await publishComparison({ devices, requests, warmUp });
} finally {
  for (const c of children) if (c.exitCode === null) c.kill();
  for (const c of children) if (c.exitCode === null) await once(c, "exit");
  ca.cleanup();
}
