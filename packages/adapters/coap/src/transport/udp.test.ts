import { createSocket, type Socket } from "node:dgram";
import dns from "node:dns";
import { afterEach, describe, expect, it, vi } from "vitest";
import { listenUdp, literalLookup, type UdpListener } from "./udp.js";

let listener: UdpListener | undefined;
let client: Socket | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  await listener?.close();
  client?.close();
  listener = client = undefined;
});

/** A client socket that sends to 127.0.0.1 without dns.lookup (its own lookup answers at once). */
async function clientSocket(): Promise<Socket> {
  const socket = createSocket({ type: "udp4", lookup: (host, _options, callback) => callback(null, host, 4) });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return socket;
}

const next = (socket: Socket) => new Promise<string>((resolve) => socket.once("message", (m) => resolve(String(m))));

describe("listenUdp", () => {
  it("answers a datagram and writes to a peer without a DNS lookup of the peer's IP address", async () => {
    const lookups = vi.spyOn(dns, "lookup");
    listener = await listenUdp(
      { handle: (datagram, _peer, send) => send(Buffer.from(`echo ${String(datagram)}`)) },
      { port: 0, host: "127.0.0.1", onError: (err) => expect.unreachable(err.message) },
    );
    client = await clientSocket();
    const answered = next(client);
    client.send("ping", listener.port, "127.0.0.1");
    expect(await answered).toBe("echo ping");
    const written = next(client);
    listener.send(Buffer.from("hello"), { address: "127.0.0.1", port: client.address().port });
    expect(await written).toBe("hello");
    expect(lookups).not.toHaveBeenCalled();
  });

  it("looks up a name, and answers an IP address at once with its family", async () => {
    const answers: unknown[] = [];
    literalLookup("::1", 6, (...a) => answers.push(a));
    literalLookup("10.1.2.3", 4, (...a) => answers.push(a));
    expect(answers).toEqual([
      [null, "::1", 6],
      [null, "10.1.2.3", 4],
    ]);
    const resolved = await new Promise<unknown[]>((resolve) => literalLookup("localhost", 4, (...a) => resolve(a)));
    expect(resolved).toEqual([null, "127.0.0.1", 4]);
  });
});
