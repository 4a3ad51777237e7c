/**
 * Memory per idle DTLS session: N full PSK (CCM_8) handshakes driven in memory against ServerSession by the
 * package's test-kit client, the sessions then held established; heap difference after gc / N, and the buffers' own
 * memory outside the heap (array buffers) beside it. What the server sent is dropped once the handshake is over, as a
 * socket would. Run with `pnpm bench:dtls [sessions=5000]` (node --expose-gc).
 */
import { CookieJar } from "../packages/dtls/src/cookie.js";
import { helloGate } from "../packages/dtls/src/gate.js";
import { PskTestClient } from "../packages/dtls/src/psk-client.test-kit.js";
import { ServerSession } from "../packages/dtls/src/session.js";
import { systemClock } from "../packages/dtls/src/clock.js";
import { positiveInt } from "./figures.js";
import { printResult } from "./result.js";

const N = positiveInt(process.argv[2], 5000);
const PSK = Buffer.alloc(16, 7);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

async function establish(jar: CookieJar, i: number): Promise<ServerSession> {
  const client = new PskTestClient();
  const address = `10.0.${i >> 8}.${i & 255}:5684`;
  const verify = helloGate(client.hello(), address, jar);
  if (verify.kind !== "verify") throw new Error(verify.kind);
  const accepted = helloGate(client.hello(client.cookieOf(verify.reply)), address, jar);
  if (accepted.kind !== "accept") throw new Error(accepted.kind);
  const sent: Buffer[] = [];
  let done!: () => void;
  const established = new Promise<void>((r) => (done = r));
  const session = new ServerSession(accepted, {
    lookupPsk: () => Promise.resolve([PSK]),
    clock: systemClock,
    send: (d) => sent.push(d),
    onData: () => {},
    onEstablished: () => done(),
    onClose: (reason) => {
      throw new Error(reason);
    },
  });
  client.serverFlight(sent);
  session.receive(client.keyExchange("dev1", PSK));
  await established;
  sent.length = 0;
  return session;
}

const jar = new CookieJar(() => Date.now());
gc();
const { heapUsed: before, arrayBuffers: buffersBefore } = process.memoryUsage();
const held: ServerSession[] = [];
const started = performance.now();
for (let i = 0; i < N; i++) held.push(await establish(jar, i));
const seconds = (performance.now() - started) / 1000;
gc();
gc();
const { heapUsed: after, arrayBuffers: buffersAfter } = process.memoryUsage();
console.log(`${N} established PSK sessions in ${seconds.toFixed(1)} s (in memory, ${(N / seconds).toFixed(0)}/s)`);
console.log(`heap before ${(before / 1e6).toFixed(1)} MB, after ${(after / 1e6).toFixed(1)} MB`);
const perSession = (after - before) / N / 1024;
const stillEstablished = held.filter((s) => s.established).length;
const buffersPerSession = (buffersAfter - buffersBefore) / N / 1024;
console.log(`memory per idle session: ${perSession.toFixed(2)} KB (target ≤ 4 KB)`);
console.log(`array buffers (outside the heap) per idle session: ${buffersPerSession.toFixed(2)} KB`);
console.log(`sessions still established: ${stillEstablished}`);
printResult({
  measure: `memory per idle DTLS session (PSK, ${N} sessions, in process)`,
  figure: `${perSession.toFixed(2)} KB`,
  baseline: "",
  ratio: null,
  goal: "≤ 4 KB",
  met: stillEstablished === N && perSession <= 4,
});
