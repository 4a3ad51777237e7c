/**
 * DTLS 1.2 (@iot/dtls) in memory. Codec cases: datagrams of real handshakes (ClientHello with and without cookie,
 * the server's PSK and certificate flights, the clients' key exchange and certificate flights, protected application
 * data with and without a connection ID) mutated and decoded by the record, fragment, reassembly and message
 * decoders, which promise a result, never a throw. Server cases: a DtlsServer on an in-memory socket with PSK and
 * certificate suites and connection IDs, fed the next datagram of one of four scripted clients (PSK, PSK with a
 * connection ID, certificate) — mutated or whole — from its address, a client now and then starting over (a new
 * handshake replacing its session), time moving now and then (retransmission, handshake timeouts). Nothing may
 * throw or escape, no session may end with internal_error, an established session echoes a whole data record,
 * sessions and half-open handshakes stay bounded, and a fresh device still gets through.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import fc from "fast-check";
import { vector } from "../../../packages/dtls/src/bytes.js";
import {
  decodeCertificate,
  decodeCertificateRequest,
  decodeCertificateVerify,
  decodeEcdhClientKeyExchange,
  decodeEcdheServerKeyExchange,
  decodePointFormats,
  decodeU16List,
} from "../../../packages/dtls/src/ecdhe-messages.js";
import { FakeClock } from "../../../packages/dtls/src/fake-clock.test-kit.js";
import { FakeSocket } from "../../../packages/dtls/src/fake-socket.test-kit.js";
import { decodeFragments, Reassembler } from "../../../packages/dtls/src/handshake.js";
import {
  AlertDescription,
  decodeAlert,
  decodeClientHello,
  decodeFinished,
  decodeHelloVerifyRequest,
  decodePskIdentity,
  decodeServerHello,
  type Extension,
  ExtensionType,
} from "../../../packages/dtls/src/messages.js";
import { createTestCa, type TestCa } from "../../../packages/dtls/src/pki.test-kit.js";
import { PskTestClient } from "../../../packages/dtls/src/psk-client.test-kit.js";
import { ContentType, decodeRecords } from "../../../packages/dtls/src/record.js";
import { DtlsServer } from "../../../packages/dtls/src/udp-server.js";
import { applyMutations, expectResult, type FuzzTarget, mutatedBytes, type Mutation, mutation } from "../harness.js";

const PSK = Buffer.from("00112233445566778899aabbccddeeff", "hex");
const EMS: Extension = { type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) };
const CID: Extension = { type: ExtensionType.connectionId, data: vector(1, Buffer.alloc(0)) };
const MAX_HANDSHAKES = 8;

type Case =
  | { kind: "codec"; bytes: Uint8Array }
  | { kind: "server"; peer: number; restart: boolean; mutations: Mutation[]; elapseMs: number };

/** Every decoder on every record, fragment and message body of the datagram. */
function decodeAll(bytes: Uint8Array): void {
  const datagram = Buffer.from(bytes);
  for (const cidLength of [0, 6]) {
    expectResult("decodeRecords", () => decodeRecords(datagram, cidLength));
    const records = decodeRecords(datagram, cidLength);
    if (!records.ok) continue;
    const reassembler = new Reassembler();
    for (const record of records.value) {
      expectResult("decodeAlert", () => decodeAlert(record.body));
      expectResult("decodeFragments", () => decodeFragments(record.body));
      const fragments = decodeFragments(record.body);
      if (!fragments.ok) continue;
      for (const f of fragments.value) {
        expectResult("Reassembler.add", () => reassembler.add(f));
        for (const [name, decode] of MESSAGE_DECODERS) expectResult(name, () => decode(f.body));
      }
    }
  }
}

const MESSAGE_DECODERS: [string, (b: Buffer) => unknown][] = [
  ["decodeClientHello", decodeClientHello],
  ["decodeServerHello", decodeServerHello],
  ["decodeHelloVerifyRequest", decodeHelloVerifyRequest],
  ["decodePskIdentity", decodePskIdentity],
  ["decodeFinished", decodeFinished],
  ["decodeCertificate", decodeCertificate],
  ["decodeCertificateRequest", decodeCertificateRequest],
  ["decodeCertificateVerify", decodeCertificateVerify],
  ["decodeEcdheServerKeyExchange", decodeEcdheServerKeyExchange],
  ["decodeEcdhClientKeyExchange", decodeEcdhClientKeyExchange],
  ["decodeU16List", decodeU16List],
  ["decodePointFormats", decodePointFormats],
];

type Stage = "new" | "cookie" | "flight" | "established";

/** A scripted client on its own address: the datagram it sends next depends on how far its handshake got. */
interface Peer {
  address: string;
  port: number;
  certificate: boolean;
  extensions: Extension[];
  stage: Stage;
  client: PskTestClient;
  /** The datagram of this stage, kept so mutated copies of one flight are sent until a whole one gets through. */
  pending?: Buffer;
  /** The last few steps (stage, whole or mutated, answers, closes), for the message of a failure. */
  history: string[];
}

/** The system under test: a server with both kinds of suites, and the PKI its certificate clients use. */
class DtlsRig {
  readonly socket = new FakeSocket();
  readonly clock = new FakeClock();
  readonly closed = new Set<string>();
  readonly established = new Set<string>();
  readonly internalErrors: string[] = [];
  readonly server: DtlsServer;
  readonly device: { chain: Buffer[]; key: ReturnType<typeof createPrivateKey> };
  readonly peers: Peer[];

  constructor(readonly ca: TestCa) {
    const serverCert = ca.issue("fuzz-server");
    const device = ca.issue("fuzz-device");
    this.device = { chain: [new X509Certificate(device.certPem).raw], key: createPrivateKey(device.keyPem) };
    this.server = new DtlsServer(this.socket.asSocket(), {
      lookupPsk: (identity) => Promise.resolve(identity.toString() === "dev1" ? [PSK] : undefined),
      certificate: { chain: serverCert.certPem, key: serverCert.keyPem },
      checkClientCertificate: () => Promise.resolve({ identity: Buffer.from("fuzz-device") }),
      clock: this.clock,
      maxHandshakes: MAX_HANDSHAKES,
      sessionCache: { maxEntries: 16, lifetimeMs: 3_600_000 },
      handshakeTimeoutMs: 30_000,
      onData: (peer, data) => peer.session.sendData(data),
      onEstablished: (peer) => this.established.add(peer.address),
      onClose: (peer, reason, alert) => {
        this.closed.add(peer.address);
        if (alert === AlertDescription.internalError) this.internalErrors.push(`${peer.address}: ${reason}`);
      },
    });
    const peer = (i: number, certificate: boolean, extensions: Extension[]): Peer => ({
      ...{ address: `10.9.0.${i + 1}`, port: 5000 + i, certificate, extensions },
      ...{ stage: "new", client: new PskTestClient(), history: [] },
    });
    this.peers = [peer(0, false, [EMS]), peer(1, false, []), peer(2, false, [EMS, CID]), peer(3, true, [EMS])];
  }

  private suites(p: Peer): number[] {
    return p.certificate ? [0xc02b, 0xc0ae] : [0xc0a8, 0x00ae];
  }

  /** The whole datagram peer `p` sends next. */
  next(p: Peer): Buffer {
    switch (p.stage) {
      case "new":
        p.client = new PskTestClient(this.suites(p), p.extensions);
        return p.client.hello();
      case "cookie":
        return p.pending!;
      case "flight":
        p.pending ??= p.certificate
          ? p.client.certificateFlight(this.device.chain, this.device.key)
          : p.client.keyExchange("dev1", PSK);
        return p.pending;
      case "established":
        return p.client.record(ContentType.applicationData, 1, Buffer.from(`data ${p.client.random[0]}`));
    }
  }

  /** Moves the script on after a datagram: `whole` says it went unmutated, `replies` are the server's answers. */
  advance(p: Peer, whole: boolean, replies: Buffer[]): void {
    const lost = this.closed.has(p.address);
    this.closed.delete(p.address);
    p.history.push(`${p.stage} ${whole ? "whole" : "mutated"} ${replies.length} answers${lost ? " closed" : ""}`);
    p.history.splice(0, p.history.length - 12);
    // A mutated flight that still established did so with this client's keys (its Finished verified).
    if (p.stage === "flight" && this.established.delete(p.address)) {
      p.stage = "established";
      return;
    }
    // In the cookie stage a close is the old session's, which the new handshake replaces.
    if (lost && p.stage !== "new" && p.stage !== "cookie") return this.reset(p);
    if (!whole) return;
    try {
      if (p.stage === "new" && replies.length > 0) {
        p.pending = p.client.hello(p.client.cookieOf(replies[0]!));
        p.stage = "cookie";
      } else if (p.stage === "cookie" && replies.length > 0) {
        p.client.serverFlight(replies);
        p.pending = undefined;
        p.stage = "flight";
        this.established.delete(p.address); // the replaced session's, if it established unseen
      } else if (p.stage === "flight") {
        // The whole flight did not establish: the session is gone (timed out, ended) or stuck (an earlier mutated
        // record's message took the place of one of the flight's).
        this.reset(p);
      } else if (p.stage === "established") {
        const echoed = replies.flatMap((r) => p.client.open(r)).some((r) => r.type === ContentType.applicationData);
        if (!echoed) throw new EchoMissing(p.address, p.history);
      }
    } catch (e) {
      if (e instanceof EchoMissing) throw e;
      this.reset(p); // an answer this script did not expect (a retransmitted flight, say): start over
    }
  }

  private reset(p: Peer): void {
    p.history.push("start over");
    p.history.splice(0, p.history.length - 12);
    p.stage = "new";
    p.pending = undefined;
  }

  /** `restart`: the client starts over with a new ClientHello, as a device that rebooted does. */
  async serverCase(c: { peer: number; restart: boolean; mutations: Mutation[]; elapseMs: number }): Promise<void> {
    const p = this.peers[c.peer]!;
    if (c.restart) this.reset(p);
    let whole: Buffer;
    try {
      whole = this.next(p);
    } catch {
      this.reset(p); // the server's last answer was no flight this script can go on from (an alert): start over
      whole = this.next(p);
    }
    const sent = c.mutations.length ? Buffer.from(applyMutations(whole, c.mutations)) : whole;
    this.socket.take();
    this.socket.deliver(sent, p.address, p.port);
    await new Promise((r) => setImmediate(r)); // a PSK lookup or certificate check resolves
    const replies = this.socket.take().filter((d) => d.address === p.address);
    this.advance(
      p,
      c.mutations.length === 0,
      replies.map((d) => d.data),
    );
    if (c.elapseMs > 0) {
      this.clock.advance(c.elapseMs);
      this.socket.take();
      for (const q of this.peers) this.advance(q, false, []);
    }
    if (this.internalErrors.length) throw new Error(`a session ended with internal_error: ${this.internalErrors[0]}`);
    if (this.server.size > this.peers.length) throw new Error(`${this.server.size} sessions for 4 clients`);
    if (this.server.handshakes > MAX_HANDSHAKES) throw new Error(`${this.server.handshakes} half-open handshakes`);
  }

  /** A fresh device on its own address completes a PSK handshake, has its data echoed, and closes. */
  async alive(): Promise<void> {
    const client = new PskTestClient([0xc0a8], [EMS]);
    const [address, port] = ["192.0.2.99", 7000];
    const ask = async (d: Buffer) => {
      this.socket.take();
      this.socket.deliver(d, address, port);
      await new Promise((r) => setImmediate(r));
      return this.socket
        .take()
        .filter((s) => s.address === address)
        .map((s) => s.data);
    };
    const [verify] = await ask(client.hello());
    if (!verify) throw new Error("no HelloVerifyRequest for the live device");
    const flight = await ask(client.hello(client.cookieOf(verify)));
    if (!flight.length) throw new Error("no server flight for the live device");
    client.serverFlight(flight);
    await ask(client.keyExchange("dev1", PSK));
    if (!this.established.delete(address)) throw new Error("the live device's handshake did not complete");
    const echo = await ask(client.record(ContentType.applicationData, 1, Buffer.from("alive")));
    const data = echo.flatMap((d) => client.open(d)).find((r) => r.type === ContentType.applicationData);
    if (data?.plaintext.toString() !== "alive") throw new Error("the live device's data was not echoed");
    await ask(client.alert(1, AlertDescription.closeNotify));
    this.closed.delete(address);
  }
}

class EchoMissing extends Error {
  constructor(address: string, history: string[]) {
    super(
      `the established session of ${address} did not echo a whole data record; its last steps: ${history.join("; ")}`,
    );
  }
}

/** A sample of real datagrams, each of a kind the codec cases mutate. */
async function sampleDatagrams(rig: DtlsRig): Promise<Buffer[]> {
  const out: Buffer[] = [];
  const capture = rig.socket.send.bind(rig.socket);
  rig.socket.send = (data, port, address) => (out.push(data), capture(data, port, address));
  for (let i = 0; i < 40; i++) {
    const p = rig.peers[i % rig.peers.length]!;
    const d = rig.next(p);
    out.push(d);
    await rig.serverCase({ peer: i % rig.peers.length, restart: i % 16 === 15, mutations: [], elapseMs: 0 });
  }
  rig.socket.send = capture;
  return out;
}

/** The DTLS target: codecs and the server state machine, one rig for the run. */
export const dtlsRecords: FuzzTarget<Case> = {
  name: "dtls-records",
  description:
    "DTLS records, handshake messages and the server state machine refuse bad datagrams, never throw or leak",
  start: async () => {
    const ca = createTestCa("Fuzz CA");
    const rig = new DtlsRig(ca);
    const samples = await sampleDatagrams(rig);
    const noMutations = fc.constant([] as Mutation[]);
    const arbitrary: fc.Arbitrary<Case> = fc.oneof(
      mutatedBytes(fc.constantFrom(...samples.map((s) => new Uint8Array(s)))).map((bytes) => ({
        kind: "codec" as const,
        bytes,
      })),
      fc.record({
        kind: fc.constant("server" as const),
        peer: fc.nat(3),
        restart: fc.oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
        mutations: fc.oneof(
          { weight: 2, arbitrary: noMutations },
          { weight: 3, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
        ),
        elapseMs: fc.oneof({ weight: 19, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(70_000) }),
      }),
    );
    return {
      arbitrary,
      run: (c) => (c.kind === "codec" ? decodeAll(c.bytes) : rig.serverCase(c)),
      alive: () => rig.alive(),
      stop: async () => {
        rig.server.close();
        ca.cleanup();
      },
    };
  },
};
