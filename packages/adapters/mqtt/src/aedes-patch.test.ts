import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { Aedes } from "aedes";
import mqtt, { type IClientOptions } from "mqtt";
import { afterEach, describe, expect, it } from "vitest";

/**
 * patches/aedes@1.2.0.patch and patches/aedes-persistence@11.0.0.patch: a CONNECT whose client has nothing queued
 * skips aedes' stream pipeline of the offline queue; one with queued QoS 1 messages still gets them.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function brokerOnPort() {
  const broker = await Aedes.createBroker();
  const server = createServer(broker.handle);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanups.push(() => new Promise((r) => server.close(() => broker.close(() => r()))));
  const { persistence } = broker as unknown as { persistence: { outgoingStream: (client: unknown) => unknown } };
  const streamed: unknown[] = [];
  const outgoingStream = persistence.outgoingStream.bind(persistence);
  persistence.outgoingStream = (client) => {
    streamed.push(client);
    return outgoingStream(client);
  };
  const url = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const connect = async (options: IClientOptions) => {
    const client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, ...options });
    cleanups.push(() => client.endAsync(true));
    return client;
  };
  return { streamed, connect, url };
}

describe("aedes' connect with an empty offline queue (patched)", () => {
  it("answers a clean-session CONNECT without streaming its (empty) offline queue", async () => {
    const { streamed, connect } = await brokerOnPort();
    const client = await connect({ clientId: "dev-a", clean: true });
    expect(client.connected).toBe(true);
    await client.publishAsync("t/1", "still served after the CONNECT", { qos: 1 });
    expect(streamed).toEqual([]);
  });

  it("still delivers QoS 1 messages queued for a persistent session while it was offline", async () => {
    const { streamed, connect, url } = await brokerOnPort();
    const first = await connect({ clientId: "dev-p", clean: false });
    await first.subscribeAsync("cmd/#", { qos: 1 });
    await first.endAsync();
    const publisher = await connect({ clientId: "pub", clean: true });
    await publisher.publishAsync("cmd/1", "queued while offline", { qos: 1 });
    // Listening before the CONNACK: the queued message follows it at once.
    const again = mqtt.connect(url, { clientId: "dev-p", clean: false, protocolVersion: 4, reconnectPeriod: 0 });
    cleanups.push(() => again.endAsync(true));
    const [topic, payload] = await new Promise<[string, Buffer]>((r) => again.once("message", (t, p) => r([t, p])));
    expect([topic, payload.toString()]).toEqual(["cmd/1", "queued while offline"]);
    expect(streamed).toHaveLength(1);
  });
});

describe("aedes' CONNACK (patched)", () => {
  /** A broker whose sockets record every chunk written to them; `authenticate` refuses when it answers a code. */
  async function recordingBroker(refuseWith?: number) {
    const broker = await Aedes.createBroker({
      authenticate: (_client, _user, _password, done) =>
        refuseWith === undefined
          ? done(null, true)
          : done(Object.assign(new Error("refused"), { returnCode: refuseWith }), false),
    });
    const writes: Buffer[] = [];
    const server = createServer((socket) => {
      const write = socket.write.bind(socket);
      socket.write = (chunk: Buffer) => {
        writes.push(Buffer.from(chunk));
        return write(chunk);
      };
      broker.handle(socket);
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    cleanups.push(() => new Promise((r) => server.close(() => broker.close(() => r()))));
    return { writes, url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it("writes an accepting CONNACK as one 4-byte chunk, the bytes MQTT 3.1.1 gives it", async () => {
    const { writes, url } = await recordingBroker();
    const client = await mqtt.connectAsync(url, { clientId: "dev-c", protocolVersion: 4, reconnectPeriod: 0 });
    cleanups.push(() => client.endAsync(true));
    expect(writes[0]).toEqual(Buffer.from([0x20, 0x02, 0x00, 0x00]));
  });

  it("writes a refusing CONNACK (not authorized) as one chunk with its return code", async () => {
    const { writes, url } = await recordingBroker(5);
    const client = mqtt.connect(url, { clientId: "dev-r", protocolVersion: 4, reconnectPeriod: 0 });
    cleanups.push(() => client.endAsync(true));
    const err = await new Promise<Error & { code?: number }>((r) => client.once("error", r));
    expect(err.code).toBe(5);
    expect(writes[0]).toEqual(Buffer.from([0x20, 0x02, 0x00, 0x05]));
  });
});
