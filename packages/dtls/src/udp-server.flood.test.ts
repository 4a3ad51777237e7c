import v8 from "node:v8";
import vm from "node:vm";
import { expect, test } from "vitest";
import { FakeClock } from "./fake-clock.test-kit.js";
import { FakeSocket } from "./fake-socket.test-kit.js";
import { HandshakeType } from "./handshake.js";
import { PskTestClient } from "./psk-client.test-kit.js";
import { ContentType } from "./record.js";
import { DtlsServer } from "./udp-server.js";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;
const heapMiB = () => (gc(), gc(), process.memoryUsage().heapUsed / 2 ** 20);

const PSK = Buffer.alloc(16, 3);
/** The i-th spoofed source: a distinct address for each of 16 million. */
const spoofed = (i: number) => ({
  address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
  port: 1024 + (i % 60_000),
});

function flooded(maxHandshakes: number) {
  const socket = new FakeSocket();
  const clock = new FakeClock();
  const established: string[] = [];
  const server = new DtlsServer(socket.asSocket(), {
    lookupPsk: () => Promise.resolve([PSK]),
    clock,
    maxHandshakes,
    handshakeTimeoutMs: 10_000,
    onData: () => {},
    onEstablished: (peer) => established.push(peer.address),
  });
  return { socket, clock, server, established };
}

test("100,000 ClientHellos from 100,000 spoofed addresses cost only HelloVerifyRequests: no session, no handshake, flat heap", () => {
  const { socket, server } = flooded(50);
  const hellos = Array.from({ length: 16 }, () => new PskTestClient([0xc0a8, 0x00ae]).hello());
  const before = heapMiB();
  let verifies = 0;
  for (let i = 0; i < 100_000; i++) {
    const from = spoofed(i);
    socket.deliver(hellos[i % hellos.length]!, from.address, from.port);
    for (const { data } of socket.take()) {
      // A HelloVerifyRequest: one handshake record whose message type is 3.
      if (data[0] === ContentType.handshake && data[13] === HandshakeType.helloVerifyRequest) verifies++;
    }
    if (i % 10_000 === 0) expect(server.size).toBe(0);
  }
  const grownMiB = heapMiB() - before;
  expect(verifies).toBe(100_000);
  expect(server.size).toBe(0);
  expect(server.handshakes).toBe(0);
  expect(server.cachedSessions).toBe(0);
  // One kept session would be several KB: 100,000 of them hundreds of MiB.
  expect(grownMiB).toBeLessThan(8);
  server.close();
});

test("half-open handshakes stop at maxHandshakes, expire after the handshake timeout, and a device then gets through", async () => {
  const { socket, clock, server, established } = flooded(50);
  const flights = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const from = spoofed(i);
    const client = new PskTestClient();
    socket.deliver(client.hello(), from.address, from.port);
    const [verify] = socket.take();
    socket.deliver(client.hello(client.cookieOf(verify!.data)), from.address, from.port);
    for (const d of socket.take()) flights.add(d.address);
  }
  expect(flights.size).toBe(50);
  expect(server.handshakes).toBe(50);
  expect(server.size).toBe(50);

  clock.advance(10_000);
  // Until then the 50 flights were sent again (1 s, 3 s, 7 s), to those 50 addresses only.
  const retransmittedTo = new Set(socket.take().map((d) => d.address));
  expect([...retransmittedTo].every((a) => flights.has(a))).toBe(true);
  expect(server.handshakes).toBe(0);
  expect(server.size).toBe(0);

  const device = new PskTestClient();
  socket.deliver(device.hello(), "192.0.2.7", 5000);
  socket.deliver(device.hello(device.cookieOf(socket.take()[0]!.data)), "192.0.2.7", 5000);
  device.serverFlight(socket.take().map((d) => d.data));
  socket.deliver(device.keyExchange("dev1", PSK), "192.0.2.7", 5000);
  await new Promise((r) => setImmediate(r));
  expect(established).toEqual(["192.0.2.7"]);
  expect(server.handshakes).toBe(0);
  expect(server.size).toBe(1);
  server.close();
});
