import { describe, expect, test } from "vitest";
import { CookieJar } from "./cookie.js";
import { FakeClock } from "./fake-clock.test-kit.js";
import { helloGate } from "./gate.js";
import { decodeFragments, encodeHandshake, HandshakeType } from "./handshake.js";
import { AlertDescription, AlertLevel, decodeServerHello, ExtensionType } from "./messages.js";
import { PskTestClient } from "./psk-client.test-kit.js";
import { ContentType, decodeRecords, DTLS12, encodeRecord } from "./record.js";
import { ServerSession } from "./session.js";

const PSK = Buffer.from("00112233445566778899aabbccddeeff", "hex");
const settle = () => new Promise((r) => setImmediate(r));

function decodeRecordBody(datagram: Buffer): Buffer {
  const records = decodeRecords(datagram);
  if (!records.ok) throw new Error(records.reason);
  return records.value[0]!.body;
}

function start(client = new PskTestClient(), keys: Buffer[] = [PSK]) {
  const clock = new FakeClock();
  const jar = new CookieJar(clock.now);
  const verify = helloGate(client.hello(), "10.0.0.1:5684", jar);
  if (verify.kind !== "verify") throw new Error(verify.kind);
  const accepted = helloGate(client.hello(client.cookieOf(verify.reply)), "10.0.0.1:5684", jar);
  if (accepted.kind !== "accept") throw new Error(accepted.kind);
  const sent: Buffer[] = [];
  const data: Buffer[] = [];
  const closes: { reason: string; alert?: number }[] = [];
  const established: { keyIndex: number }[] = [];
  const session = new ServerSession(accepted, {
    lookupPsk: (id) => Promise.resolve(id.toString() === "dev1" ? keys : undefined),
    clock,
    handshakeTimeoutMs: 30_000,
    send: (d) => sent.push(d),
    onData: (d) => data.push(d),
    onEstablished: (info) => established.push(info),
    onClose: (reason, alert) => closes.push({ reason, alert }),
  });
  client.serverFlight(sent);
  return { client, clock, session, sent, data, closes, established };
}

async function establish(keys?: Buffer[]) {
  const s = start(new PskTestClient(), keys);
  s.sent.length = 0;
  s.session.receive(s.client.keyExchange("dev1", PSK));
  await settle();
  return s;
}

describe("helloGate", () => {
  test("answers a ClientHello without cookie with a HelloVerifyRequest mirroring its numbers, and drops garbage", () => {
    const jar = new CookieJar(() => 0);
    const verdict = helloGate(new PskTestClient().hello(), "a:1", jar);
    expect(verdict.kind).toBe("verify");
    if (verdict.kind === "verify")
      expect(verdict.reply.subarray(0, 13).toString("hex")).toMatch(/^16feff0000000000000000/);
    expect(helloGate(Buffer.from("not dtls"), "a:1", jar).kind).toBe("drop");
  });
});

describe("ServerSession", () => {
  test("completes a handshake, verifies both Finished and carries data both ways, a replayed record once", async () => {
    const { client, session, sent, data, established } = await establish();
    const records = sent.flatMap((d) => client.open(d));
    expect(records.map((r) => [r.type, r.epoch])).toEqual([
      [ContentType.changeCipherSpec, 0],
      [ContentType.handshake, 1],
    ]);
    expect(records[1]!.plaintext.subarray(12)).toEqual(client.expectedServerFinished());
    expect(session.established).toBe(true);
    expect(established).toEqual([{ identity: Buffer.from("dev1"), keyIndex: 0, suite: "TLS_PSK_WITH_AES_128_CCM_8" }]);
    const record = client.record(ContentType.applicationData, 1, Buffer.from("up"));
    session.receive(record);
    session.receive(record);
    await settle();
    expect(data).toEqual([Buffer.from("up")]);
    session.sendData(Buffer.from("down"));
    expect(client.open(sent.at(-1)!)).toEqual([
      { type: ContentType.applicationData, epoch: 1, plaintext: Buffer.from("down") },
    ]);
  });

  test("tries each candidate key: the second one that verifies Finished is the session's", async () => {
    const { established } = await establish([Buffer.from("00112233445566778899aabbccddeeff"), PSK]);
    expect(established[0]!.keyIndex).toBe(1);
  });

  test("retransmits its flight after 1 s, then 2 s, and at once when the ClientHello comes again", () => {
    const { client, clock, session, sent } = start();
    const first = sent.length;
    clock.advance(999);
    expect(sent.length).toBe(first);
    clock.advance(1);
    expect(sent.length).toBe(2 * first);
    clock.advance(1999);
    expect(sent.length).toBe(2 * first);
    clock.advance(1);
    expect(sent.length).toBe(3 * first);
    expect(client.open(sent.at(-1)!).map((r) => r.plaintext)).toEqual(
      client.open(sent[first - 1]!).map((r) => r.plaintext),
    );
    session.receive(client.hello(Buffer.alloc(16)));
    return settle().then(() => expect(sent.length).toBe(4 * first));
  });

  test("a spoofed epoch 0 record numbered 2^40 mid-handshake does not stop the client's own flight from finishing it", async () => {
    const { client, session, sent, established, closes } = start();
    const spoofed = (type: number, body: Buffer) =>
      encodeRecord({ type, version: DTLS12, epoch: 0, seq: 2 ** 40, body });
    const ahead = encodeHandshake({ msgType: HandshakeType.clientKeyExchange, messageSeq: 9, body: Buffer.alloc(8) });
    const flightBefore = sent.length;
    for (const datagram of [
      spoofed(ContentType.handshake, ahead), // a message the handshake does not expect yet
      spoofed(ContentType.handshake, Buffer.from("garbage")),
      spoofed(ContentType.changeCipherSpec, Buffer.from([1])),
      spoofed(ContentType.alert, Buffer.from([AlertLevel.warning, AlertDescription.noRenegotiation])),
      spoofed(ContentType.handshake, decodeRecordBody(new PskTestClient().hello())), // an earlier ClientHello
    ]) {
      session.receive(datagram);
    }
    await settle();
    expect(sent.length).toBe(2 * flightBefore); // the earlier ClientHello had the flight sent again, nothing more
    session.receive(client.keyExchange("dev1", PSK));
    await settle();
    expect(closes).toEqual([]);
    expect(established).toEqual([{ identity: Buffer.from("dev1"), keyIndex: 0, suite: "TLS_PSK_WITH_AES_128_CCM_8" }]);
    expect(session.established).toBe(true);
  });

  test("a replayed copy of a record the handshake took is dropped", async () => {
    const { client, session, sent, closes } = start();
    const flight = client.keyExchange("dev1", PSK);
    const keyExchangeRecord = flight.subarray(0, 13 + flight.readUInt16BE(11));
    session.receive(keyExchangeRecord);
    await settle();
    sent.length = 0;
    session.receive(keyExchangeRecord);
    session.receive(flight);
    await settle();
    expect(closes).toEqual([]);
    expect(session.established).toBe(true);
  });

  test("drops a handshake that does not finish in time", () => {
    const { clock, session, closes } = start();
    clock.advance(30_000);
    expect(session.closed).toBe(true);
    expect(closes).toEqual([{ reason: "handshake timed out", alert: undefined }]);
  });

  test("sends its last flight again when the client repeats its Finished", async () => {
    const { client, session, sent } = await establish();
    sent.length = 0;
    session.receive(client.repeatFinished());
    await settle();
    expect(sent.flatMap((d) => client.open(d)).map((r) => r.type)).toEqual([
      ContentType.changeCipherSpec,
      ContentType.handshake,
    ]);
  });

  test("forgets its Finished once the client's data shows it arrived: a later repeated Finished gets no answer", async () => {
    const { client, session, sent, data } = await establish();
    session.receive(client.record(ContentType.applicationData, 1, Buffer.from("first")));
    await settle();
    expect(data.map((d) => d.toString())).toEqual(["first"]);
    sent.length = 0;
    session.receive(client.repeatFinished());
    await settle();
    expect(sent).toEqual([]);
    expect(session.established).toBe(true);
  });

  test("refuses renegotiation with a warning and keeps the session", async () => {
    const { client, session, sent } = await establish();
    sent.length = 0;
    session.receive(client.renegotiate());
    await settle();
    expect(client.open(sent[0]!)[0]!.plaintext).toEqual(
      Buffer.from([AlertLevel.warning, AlertDescription.noRenegotiation]),
    );
    expect(session.established).toBe(true);
  });

  test("answers close_notify with close_notify and ends", async () => {
    const { client, session, sent, closes } = await establish();
    sent.length = 0;
    session.receive(client.alert(AlertLevel.warning, AlertDescription.closeNotify));
    await settle();
    expect(client.open(sent[0]!)[0]!.plaintext).toEqual(Buffer.from([1, 0]));
    expect(closes).toEqual([{ reason: "closed by the client", alert: undefined }]);
    expect(session.closed).toBe(true);
  });

  test("ignores an unprotected fatal alert once keys are in use", async () => {
    const { client, session, closes } = await establish();
    session.receive(
      client.record(ContentType.alert, 0, Buffer.from([AlertLevel.fatal, AlertDescription.internalError])),
    );
    await settle();
    expect(closes).toEqual([]);
    expect(session.established).toBe(true);
  });

  test("fails with handshake_failure when no cipher suite is shared", () => {
    const { sent, closes } = start(new PskTestClient([0xc02b]));
    expect(sent.at(-1)!.subarray(13)).toEqual(Buffer.from([AlertLevel.fatal, AlertDescription.handshakeFailure]));
    expect(closes[0]!.alert).toBe(AlertDescription.handshakeFailure);
  });

  test("answers a client that signals secure renegotiation with an empty renegotiation_info", () => {
    const { sent } = start(new PskTestClient([0xc0a8, 0x00ff], []));
    const records = decodeRecords(sent[0]!);
    const fragments = records.ok ? decodeFragments(records.value[0]!.body) : undefined;
    const fragment = fragments?.ok ? fragments.value[0] : undefined;
    expect(fragment?.msgType).toBe(HandshakeType.serverHello);
    const hello = decodeServerHello(fragment!.body);
    expect(hello.ok && hello.value.extensions).toEqual([
      { type: ExtensionType.renegotiationInfo, data: Buffer.from([0]) },
    ]);
  });
});
