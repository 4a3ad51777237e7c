import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { afterEach, describe, expect, test } from "vitest";
import { vector } from "./bytes.js";
import { ExtensionType } from "./messages.js";
import { ccm8Seal, CIPHER_SUITES } from "./protection.js";
import { PskTestClient } from "./psk-client.test-kit.js";
import { ContentType, decodeRecords, encodeRecord } from "./record.js";
import { type DtlsPeer, DtlsServer } from "./udp-server.js";

const PSK = Buffer.alloc(16, 7);
const CLIENT_CID = Buffer.from("c1d2c3d4", "hex");
const withCid = () =>
  new PskTestClient(
    [0xc0a8],
    [
      { type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) },
      { type: ExtensionType.connectionId, data: vector(1, CLIENT_CID) },
    ],
  );

describe("tls12_cid record protection (RFC 9146 §5)", () => {
  test("seals with the additional data laid out as RFC 9146 §5.2 lists it, and opens what it sealed", () => {
    const suite = CIPHER_SUITES.find((s) => s.name === "TLS_PSK_WITH_AES_128_CCM_8")!;
    const keys = { macKey: Buffer.alloc(0), encKey: Buffer.alloc(16, 0x42), fixedIv: Buffer.from("01020304", "hex") };
    const p = suite.protection(keys);
    const cid = Buffer.from("0a0b0c0d0e0f", "hex");
    const inner = Buffer.concat([Buffer.from("hello"), Buffer.from([ContentType.applicationData])]);
    // seq_num_placeholder | tls12_cid | cid_length | tls12_cid | version | epoch | sequence_number | cid | length
    const aad = Buffer.from(
      "ffffffffffffffff" + "19" + "06" + "19" + "fefd" + "0001" + "000000000005" + "0a0b0c0d0e0f" + "0006",
      "hex",
    );
    const explicit = Buffer.from("0001000000000005", "hex");
    const expected = Buffer.concat([
      explicit,
      ccm8Seal(keys.encKey, Buffer.concat([keys.fixedIv, explicit]), aad, inner),
    ]);
    expect(p.seal(ContentType.tls12Cid, 1, 5, inner, cid)).toEqual(expected);
    const opened = p.open(ContentType.tls12Cid, 1, 5, expected, cid);
    expect(opened.ok && opened.value).toEqual(inner);
    expect(p.open(ContentType.tls12Cid, 1, 5, expected, Buffer.from("0a0b0c0d0e00", "hex")).ok).toBe(false);
    expect(p.open(ContentType.tls12Cid, 1, 5, expected).ok).toBe(false);
  });

  test("a tls12_cid record is read only with a connection ID length and never in epoch 0", () => {
    const record = encodeRecord({
      type: 25,
      version: 0xfefd,
      epoch: 1,
      seq: 9,
      cid: Buffer.alloc(6, 1),
      body: Buffer.alloc(3),
    });
    expect(record.subarray(11, 17)).toEqual(Buffer.alloc(6, 1));
    const decoded = decodeRecords(record, 6);
    expect(decoded.ok && decoded.value[0]).toMatchObject({ type: 25, seq: 9, cid: Buffer.alloc(6, 1) });
    expect(decodeRecords(record).ok).toBe(false);
    const epoch0 = Buffer.from(record);
    epoch0.writeUInt16BE(0, 3);
    expect(decodeRecords(epoch0, 6).ok).toBe(false);
  });
});

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

/** The text of a datagram's first record, opened by `c`. */
const textOf = (c: PskTestClient, datagram: Buffer) => c.open(datagram)[0]!.plaintext.toString();

async function ask(from: Socket, to: number, datagram: Buffer): Promise<Buffer> {
  const answer = once(from, "message") as Promise<[Buffer]>;
  from.send(datagram, to, "127.0.0.1");
  return (await answer)[0];
}

describe("DtlsServer with a connection ID", () => {
  test("a client whose address changes keeps its session; only an authentic, newest record moves it", async () => {
    const serverSocket = await udp();
    const data: { text: string; port: number }[] = [];
    const moves: { from: number; to: number }[] = [];
    const server = new DtlsServer(serverSocket, {
      lookupPsk: () => Promise.resolve([PSK]),
      onData: (peer: DtlsPeer, d) => {
        data.push({ text: d.toString(), port: peer.port });
        peer.session.sendData(Buffer.from(`echo ${d.toString()}`));
      },
      onMoved: (peer, from) => moves.push({ from: from.port, to: peer.port }),
    });
    const port = serverSocket.address().port;
    const [a, b, c] = [await udp(), await udp(), await udp()];
    const client = withCid();
    const flight = await ask(a, port, client.hello(client.cookieOf(await ask(a, port, client.hello()))));
    client.serverFlight([flight]);
    expect(client.serverCid).toHaveLength(6);
    const finished = client.open(await ask(a, port, client.keyExchange("dev1", PSK)));
    expect(finished.map((r) => [r.type, r.cid?.toString("hex")])).toEqual([
      [ContentType.changeCipherSpec, undefined],
      [ContentType.handshake, CLIENT_CID.toString("hex")],
    ]);

    const old = client.record(ContentType.applicationData, 1, Buffer.from("one"));
    expect(client.open(await ask(a, port, old))[0]!.plaintext.toString()).toBe("echo one");
    const two = client.record(ContentType.applicationData, 1, Buffer.from("two"));
    const reply = client.open(await ask(b, port, two));
    expect(reply[0]).toMatchObject({ type: ContentType.applicationData, cid: CLIENT_CID });
    expect(reply[0]!.plaintext.toString()).toBe("echo two");
    expect(moves).toEqual([{ from: a.address().port, to: b.address().port }]);

    const forged = Buffer.from(client.record(ContentType.applicationData, 1, Buffer.from("three")));
    forged[forged.length - 1]! ^= 1;
    c.send(forged, port, "127.0.0.1");
    const stale = client.record(ContentType.applicationData, 1, Buffer.from("four"));
    const five = client.record(ContentType.applicationData, 1, Buffer.from("five"));
    expect(client.open(await ask(b, port, five))[0]!.plaintext.toString()).toBe("echo five");
    const heard = new Promise((resolve) => b.once("message", resolve));
    c.send(stale, port, "127.0.0.1"); // authentic but older than "five": answered, not moved
    await heard;
    expect(data.map((d) => [d.text, d.port === b.address().port])).toEqual([
      ["one", false],
      ["two", true],
      ["five", true],
      ["four", true],
    ]);
    expect(moves).toHaveLength(1);
    expect(server.size).toBe(1);
    server.close();
  });

  test("a client that moves onto the address of another session ends that one: one address, one session", async () => {
    const serverSocket = await udp();
    const closes: { port: number; reason: string }[] = [];
    const server = new DtlsServer(serverSocket, {
      lookupPsk: () => Promise.resolve([PSK]),
      onData: (peer, d) => peer.session.sendData(Buffer.from(`echo ${d.toString()}`)),
      onClose: (peer, reason) => closes.push({ port: peer.port, reason }),
    });
    const port = serverSocket.address().port;
    const [a, b] = [await udp(), await udp()];
    const handshake = async (client: PskTestClient, from: Socket) => {
      client.serverFlight([
        await ask(from, port, client.hello(client.cookieOf(await ask(from, port, client.hello())))),
      ]);
      await ask(from, port, client.keyExchange("dev1", PSK));
    };
    const mover = withCid();
    const stayer = new PskTestClient();
    await handshake(mover, a);
    await handshake(stayer, b);
    expect(server.size).toBe(2);
    const moved = textOf(mover, await ask(b, port, mover.record(ContentType.applicationData, 1, Buffer.from("hi"))));
    expect(moved).toBe("echo hi");
    expect(closes).toEqual([{ port: b.address().port, reason: "another session moved to its address" }]);
    expect(server.size).toBe(1);
    server.close();
  });

  test("a client that does not offer the extension gets none, and connectionIdLength 0 turns it off", async () => {
    const serverSocket = await udp();
    const server = new DtlsServer(serverSocket, {
      lookupPsk: () => Promise.resolve([PSK]),
      onData: () => {},
      connectionIdLength: 0,
    });
    const port = serverSocket.address().port;
    const a = await udp();
    const client = withCid();
    client.serverFlight([await ask(a, port, client.hello(client.cookieOf(await ask(a, port, client.hello()))))]);
    expect(client.serverCid).toBeUndefined();
    server.close();
  });
});
