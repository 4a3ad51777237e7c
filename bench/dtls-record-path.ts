/**
 * The DTLS publish path in one process, without sockets or the CoAP adapter: a {@link DtlsServer} on an in-memory
 * socket (the dtls package's FakeSocket) with `devices` established PSK (CCM_8) sessions, each sending application
 * data records that the server opens and answers with one record of its own (what a CoAP POST and its ACK cost the
 * DTLS layer). Prints the server's time per round trip (the client's sealing excluded), wall clock and CPU (the CPU
 * figure moves less on a shared machine), and the heap it allocates per round trip; run with `node --cpu-prof
 * --import tsx` to see where the time goes.
 *
 *   npx tsx bench/dtls-record-path.ts [devices=32] [records=200000]
 */
import { FakeSocket } from "../packages/dtls/src/fake-socket.test-kit.js";
import { PskTestClient } from "../packages/dtls/src/psk-client.test-kit.js";
import { ContentType } from "../packages/dtls/src/record.js";
import { DtlsServer } from "../packages/dtls/src/udp-server.js";
import { positiveInt } from "./figures.js";

const devices = positiveInt(process.argv[2], 32);
const records = positiveInt(process.argv[3], 200_000);
const PSK = Buffer.alloc(16, 7);
const ACK = Buffer.from("60440001", "hex"); // a CoAP ACK 2.04: what the adapter answers a POST with
const POST = Buffer.alloc(80, 0x41); // about a CoAP POST of a small JSON reading

const socket = new FakeSocket();
let answered = 0;
const server = new DtlsServer(socket.asSocket(), {
  lookupPsk: () => Promise.resolve([PSK]),
  onData: (peer) => {
    answered++;
    peer.session.sendData(ACK);
  },
});
const settle = () => new Promise((r) => setImmediate(r));

const clients: PskTestClient[] = [];
for (let i = 0; i < devices; i++) {
  const c = new PskTestClient();
  const port = 10_000 + i;
  const ask = async (d: Buffer) => {
    socket.deliver(d, "10.0.0.1", port);
    await settle();
    return socket.take().map((s) => s.data);
  };
  const cookie = c.cookieOf((await ask(c.hello()))[0]!);
  c.serverFlight(await ask(c.hello(cookie)));
  await ask(c.keyExchange("dev", PSK));
  clients.push(c);
}

/** Sealed ahead of time, so the loop below times the server alone. */
const batch = devices * 10; // a session queues at most 16 datagrams behind one in progress
const sealed = (n: number) =>
  Array.from({ length: n }, (_, i) => clients[i % devices]!.record(ContentType.applicationData, 1, POST));
let spent = 0n;
let cpu = 0;
let allocated = 0;
for (let done = 0; done < records; done += batch) {
  const datagrams = sealed(batch);
  const heapBefore = process.memoryUsage().heapUsed;
  const start = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < batch; i++) socket.deliver(datagrams[i]!, "10.0.0.1", 10_000 + (i % devices));
  await settle();
  spent += process.hrtime.bigint() - start;
  const used = process.cpuUsage(cpuBefore);
  cpu += used.user + used.system;
  allocated += Math.max(0, process.memoryUsage().heapUsed - heapBefore);
  socket.take();
}
const perRecord = Number(spent) / records / 1000;
console.log(
  `${records} records over ${devices} sessions, answered ${answered}: ${perRecord.toFixed(2)} µs per round trip ` +
    `(${(cpu / records).toFixed(2)} µs of CPU), about ${Math.round(allocated / records)} bytes of heap per round trip`,
);
server.close();
