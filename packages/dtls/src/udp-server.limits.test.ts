import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { afterEach, expect, test } from "vitest";
import { PskTestClient } from "./psk-client.test-kit.js";
import { DtlsServer } from "./udp-server.js";

const PSK = Buffer.alloc(16, 7);
const sockets: Socket[] = [];

afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function udp(): Promise<Socket> {
  const s = createSocket("udp4");
  sockets.push(s);
  s.bind(0, "127.0.0.1");
  await once(s, "listening");
  return s;
}

/** Sends a datagram and waits for the answer, or undefined after `ms`. */
async function ask(from: Socket, to: number, datagram: Buffer, ms = 300): Promise<Buffer | undefined> {
  const answer = new Promise<Buffer | undefined>((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    from.once("message", (m: Buffer) => {
      clearTimeout(t);
      resolve(m);
    });
  });
  from.send(datagram, to, "127.0.0.1");
  return answer;
}

test("keeps at most maxHandshakes half-open; a ClientHello beyond gets no answer until one finishes", async () => {
  const serverSocket = await udp();
  const established: string[] = [];
  const server = new DtlsServer(serverSocket, {
    lookupPsk: () => Promise.resolve([PSK]),
    maxHandshakes: 1,
    onData: () => {},
    onEstablished: (peer) => established.push(`${peer.port}`),
  });
  const port = serverSocket.address().port;
  const [a, b] = [await udp(), await udp()];
  const [ca, cb] = [new PskTestClient(), new PskTestClient()];

  const flightA = await ask(a, port, ca.hello(ca.cookieOf((await ask(a, port, ca.hello()))!)));
  expect(flightA).toBeDefined();
  const cookieB = cb.cookieOf((await ask(b, port, cb.hello()))!);
  expect(await ask(b, port, cb.hello(cookieB))).toBeUndefined();
  expect(server.size).toBe(1);

  ca.serverFlight([flightA!]);
  const finishedA = await ask(a, port, ca.keyExchange("dev1", PSK));
  expect(ca.open(finishedA!).map((r) => r.type)).toEqual([20, 22]);
  expect(established).toEqual([`${a.address().port}`]);

  const flightB = await ask(b, port, cb.hello(cookieB));
  expect(flightB).toBeDefined();
  expect(server.size).toBe(2);
  server.close();
});

test("drops datagrams that are not a ClientHello from an address without a session, answering nothing", async () => {
  const serverSocket = await udp();
  const server = new DtlsServer(serverSocket, { lookupPsk: () => Promise.resolve([PSK]), onData: () => {} });
  const c = await udp();
  expect(await ask(c, serverSocket.address().port, Buffer.from("garbage"))).toBeUndefined();
  expect(await ask(c, serverSocket.address().port, Buffer.alloc(0))).toBeUndefined();
  expect(await ask(c, serverSocket.address().port, Buffer.from([22, 0xfe]))).toBeUndefined();
  expect(server.size).toBe(0);
  server.close();
});

test("an established client that starts over passes the cookie exchange again and then replaces its session", async () => {
  const serverSocket = await udp();
  const closes: string[] = [];
  const server = new DtlsServer(serverSocket, {
    lookupPsk: () => Promise.resolve([PSK]),
    onData: () => {},
    onClose: (_peer, reason) => closes.push(reason),
  });
  const port = serverSocket.address().port;
  const device = await udp();
  const first = new PskTestClient();
  first.serverFlight([
    (await ask(device, port, first.hello(first.cookieOf((await ask(device, port, first.hello()))!))))!,
  ]);
  await ask(device, port, first.keyExchange("dev1", PSK));

  const again = new PskTestClient();
  const verify = await ask(device, port, again.hello());
  expect(again.cookieOf(verify!)).toHaveLength(16);
  expect(closes).toEqual([]);
  const flight = await ask(device, port, again.hello(again.cookieOf(verify!)));
  expect(flight!.subarray(0, 5)).toEqual(Buffer.from([22, 0xfe, 0xfd, 0, 0])); // a ServerHello, no alert first
  expect(flight![13]).toBe(2);
  expect(closes).toEqual(["client started a new handshake"]);
  expect(server.size).toBe(1);
  server.close();
});
