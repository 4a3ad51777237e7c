/**
 * The DTLS client of the handshake benchmark (bench/dtls-handshakes.ts): the dtls package's test-kit client on a UDP
 * socket of its own, making one full handshake after another (ClientHello, the cookie exchange when the server asks
 * for it, the key exchange or certificate flight, the server's Finished, then close_notify), so that the same client
 * code measures our server and OpenSSL's.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { encodePointFormats, encodeU16List, ECDSA_SHA256, SECP256R1 } from "../packages/dtls/src/ecdhe-messages.js";
import { decodeFragments, HandshakeType } from "../packages/dtls/src/handshake.js";
import { AlertDescription, AlertLevel, type Extension, ExtensionType } from "../packages/dtls/src/messages.js";
import { PskTestClient } from "../packages/dtls/src/psk-client.test-kit.js";
import { ContentType, decodeRecords } from "../packages/dtls/src/record.js";

/** Which handshake: PSK with AES-128-CCM-8, or ECDHE-ECDSA with AES-128-GCM and a client certificate. */
export type HandshakeKind =
  { kind: "psk"; identity: string; key: Buffer } | { kind: "ecdhe"; certPem: string; keyPem: string };

const EMS: Extension = { type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) };
const ECDHE_EXTENSIONS: Extension[] = [
  EMS,
  { type: ExtensionType.supportedGroups, data: encodeU16List([SECP256R1]) },
  { type: ExtensionType.ecPointFormats, data: encodePointFormats([0]) },
  { type: ExtensionType.signatureAlgorithms, data: encodeU16List([ECDSA_SHA256]) },
];
/** A datagram lost on loopback (or read by a server between two connections) is sent again after this long. */
const RESEND_MS = 200;

/** The handshake messages (type and epoch) of a datagram; nothing for one that does not decode. */
function handshakeTypes(datagram: Buffer): { type: number; epoch: number }[] {
  const records = decodeRecords(datagram);
  if (!records.ok) return [];
  return records.value.flatMap((r) => {
    if (r.type !== ContentType.handshake) return [];
    if (r.epoch !== 0) return [{ type: -1, epoch: r.epoch }]; // protected: the Finished
    const f = decodeFragments(r.body);
    return f.ok ? f.value.map((x) => ({ type: x.msgType, epoch: 0 })) : [];
  });
}

/** A client on its own socket, making full handshakes with the server at `port` one after the other. */
export class HandshakeClient {
  private readonly socket: Socket = createSocket("udp4");
  private inbox: Buffer[] = [];
  private wake: (() => void) | undefined;
  private readonly chain: Buffer[] | undefined;
  private readonly key: KeyObject | undefined;
  /** Datagrams sent again because no answer came in time. */
  resends = 0;

  private constructor(
    private readonly port: number,
    private readonly how: HandshakeKind,
  ) {
    if (how.kind === "ecdhe") {
      this.chain = [new X509Certificate(how.certPem).raw];
      this.key = createPrivateKey(how.keyPem);
    }
    this.socket.on("message", (d: Buffer) => {
      this.inbox.push(d);
      this.wake?.();
    });
  }

  static async open(port: number, how: HandshakeKind): Promise<HandshakeClient> {
    const c = new HandshakeClient(port, how);
    await new Promise<void>((r) => c.socket.bind(0, "127.0.0.1", r));
    return c;
  }

  close(): void {
    this.socket.close();
  }

  /** One full handshake, ended with close_notify. */
  async handshake(): Promise<void> {
    const psk = this.how.kind === "psk";
    const client = psk ? new PskTestClient([0xc0a8], [EMS]) : new PskTestClient([0xc02b], ECDHE_EXTENSIONS);
    this.inbox = [];
    // The last datagram is the answer; any before it are the previous connection's (its close_notify).
    let first = (await this.exchange(client.hello(), (d) => handshakeTypes(d).length > 0)).slice(-1);
    if (handshakeTypes(first[0]!).some((m) => m.type === HandshakeType.helloVerifyRequest)) {
      first = await this.exchange(client.hello(client.cookieOf(first[0]!)), (d) => handshakeTypes(d).length > 0);
    }
    const flight = await this.until(first, (d) =>
      handshakeTypes(d).some((m) => m.type === HandshakeType.serverHelloDone),
    );
    client.serverFlight(flight);
    const finish = psk
      ? client.keyExchange(this.how.identity, this.how.key)
      : client.certificateFlight(this.chain!, this.key!);
    await this.exchange(finish, (d) => handshakeTypes(d).some((m) => m.epoch === 1));
    this.socket.send(client.alert(AlertLevel.warning, AlertDescription.closeNotify), this.port, "127.0.0.1");
  }

  /** Sends `datagram` (again every RESEND_MS) until a datagram that `done` accepts arrives; all received so far. */
  private async exchange(datagram: Buffer, done: (d: Buffer) => boolean): Promise<Buffer[]> {
    this.inbox = [];
    for (;;) {
      this.socket.send(datagram, this.port, "127.0.0.1");
      const got = await this.waitFor(done, RESEND_MS);
      if (got) return got;
      this.resends++;
    }
  }

  /** The datagrams received until one that `done` accepts (those in `already` first). */
  private async until(already: Buffer[], done: (d: Buffer) => boolean): Promise<Buffer[]> {
    this.inbox = [...already, ...this.inbox];
    const got = await this.waitFor(done, 5000);
    if (!got) throw new Error("the server's flight did not complete");
    return got;
  }

  private async waitFor(done: (d: Buffer) => boolean, ms: number): Promise<Buffer[] | undefined> {
    const deadline = performance.now() + ms;
    for (;;) {
      const at = this.inbox.findIndex(done);
      if (at >= 0) return this.inbox.splice(0, at + 1);
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
