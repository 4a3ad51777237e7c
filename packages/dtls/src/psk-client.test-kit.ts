import { createECDH, createSign, type KeyObject, randomBytes } from "node:crypto";
import {
  decodeEcdheServerKeyExchange,
  ECDSA_SHA256,
  encodeCertificate,
  encodeCertificateVerify,
  encodeEcdhClientKeyExchange,
} from "./ecdhe-messages.js";
import { decodeFragments, encodeHandshake, HandshakeType, Reassembler } from "./handshake.js";
import {
  CHANGE_CIPHER_SPEC,
  type ClientHello,
  decodeHelloVerifyRequest,
  decodeServerHello,
  encodeAlert,
  encodeClientHello,
  encodePskIdentity,
  type Extension,
  ExtensionType,
} from "./messages.js";
import { pskPremasterSecret, transcriptHash, verifyData } from "./prf.js";
import { CIPHER_SUITES, type RecordProtection } from "./protection.js";
import { ContentType, decodeRecords, DTLS12, encodeRecord } from "./record.js";
import { candidateKeys } from "./session-keys.js";

/**
 * A DTLS 1.2 PSK or ECDHE_ECDSA client built from this package's codecs, for driving the server in memory where a
 * real peer cannot be steered (lost flights, replays, renegotiation, a CertificateVerify under another key).
 * Interoperability is shown against OpenSSL and libcoap instead.
 */
export class PskTestClient {
  readonly random = randomBytes(32);
  private messageSeq = 0;
  private readonly seq = [0, 0];
  private transcript: Buffer[] = [];
  private serverRandom: Buffer = Buffer.alloc(0);
  private suiteId = 0;
  private extended = false;
  private write: RecordProtection | undefined;
  private read: RecordProtection | undefined;
  private master: Buffer = Buffer.alloc(0);
  private finished: Buffer = Buffer.alloc(0);
  private serverKeyExchange: Buffer | undefined;
  /** The connection ID the server handed out (RFC 9146), which this client's epoch 1 records carry. */
  serverCid: Buffer | undefined;

  constructor(
    private readonly suites = [0xc0a8],
    private readonly extensions: Extension[] = [{ type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) }],
  ) {}

  /** A ClientHello datagram; the one with a cookie starts the transcript. */
  hello(cookie: Buffer = Buffer.alloc(0)): Buffer {
    const h: ClientHello = {
      clientVersion: DTLS12,
      random: this.random,
      sessionId: Buffer.alloc(0),
      cookie,
      cipherSuites: this.suites,
      compressionMethods: Buffer.from([0]),
      extensions: this.extensions,
    };
    const wire = encodeHandshake({
      msgType: HandshakeType.clientHello,
      messageSeq: this.messageSeq++,
      body: encodeClientHello(h),
    });
    if (cookie.length > 0) this.transcript = [wire];
    return this.record(ContentType.handshake, 0, wire);
  }

  /** The cookie of a HelloVerifyRequest datagram. */
  cookieOf(datagram: Buffer): Buffer {
    const body = this.handshakeBodies(datagram)[0]!;
    const hvr = decodeHelloVerifyRequest(body.subarray(12));
    if (!hvr.ok) throw new Error(hvr.reason);
    return hvr.value.cookie;
  }

  /** Takes the server's ServerHello ... ServerHelloDone flight (its messages may come in fragments). */
  serverFlight(datagrams: Buffer[]): void {
    const reassembler = new Reassembler();
    for (const wire of datagrams.flatMap((d) => this.handshakeBodies(d, reassembler))) {
      this.transcript.push(wire);
      if (wire[0] === HandshakeType.serverKeyExchange) this.serverKeyExchange = wire.subarray(12);
      if (wire[0] !== HandshakeType.serverHello) continue;
      const sh = decodeServerHello(wire.subarray(12));
      if (!sh.ok) throw new Error(sh.reason);
      this.serverRandom = sh.value.random;
      this.suiteId = sh.value.cipherSuite;
      this.extended = sh.value.extensions.some((e) => e.type === ExtensionType.extendedMasterSecret);
      const cid = sh.value.extensions.find((e) => e.type === ExtensionType.connectionId);
      this.serverCid = cid ? cid.data.subarray(1, 1 + cid.data[0]!) : undefined;
    }
  }

  /** ClientKeyExchange, ChangeCipherSpec and Finished in one datagram. */
  keyExchange(identity: string, psk: Buffer): Buffer {
    const cke = this.nextHandshake(HandshakeType.clientKeyExchange, encodePskIdentity(Buffer.from(identity)));
    this.transcript.push(cke);
    this.takeKeys(pskPremasterSecret(psk));
    return this.finishFlight([this.record(ContentType.handshake, 0, cke)]);
  }

  /** Certificate, ECDH ClientKeyExchange, CertificateVerify signed with `signer`, ChangeCipherSpec and Finished. */
  certificateFlight(chain: Buffer[], signer: KeyObject): Buffer {
    const ske = decodeEcdheServerKeyExchange(this.serverKeyExchange ?? Buffer.alloc(0));
    if (!ske.ok) throw new Error(ske.reason);
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const certificate = this.nextHandshake(HandshakeType.certificate, encodeCertificate(chain));
    this.transcript.push(certificate);
    const cke = this.nextHandshake(HandshakeType.clientKeyExchange, encodeEcdhClientKeyExchange(ecdh.getPublicKey()));
    this.transcript.push(cke);
    this.takeKeys(ecdh.computeSecret(ske.value.point));
    const sign = createSign("sha256");
    for (const m of this.transcript) sign.update(m);
    const signed = { algorithm: ECDSA_SHA256, signature: sign.sign(signer) };
    const verify = this.nextHandshake(HandshakeType.certificateVerify, encodeCertificateVerify(signed));
    this.transcript.push(verify);
    return this.finishFlight([certificate, cke, verify].map((m) => this.record(ContentType.handshake, 0, m)));
  }

  private takeKeys(premaster: Buffer): void {
    const suite = CIPHER_SUITES.find((s) => s.id === this.suiteId)!;
    const randoms = { client: this.random, server: this.serverRandom };
    const [keys] = candidateKeys([premaster], suite, this.transcript, randoms, this.extended);
    this.master = keys!.master;
    this.read = keys!.write;
    this.write = keys!.read;
  }

  /** The flight's records, then ChangeCipherSpec and Finished, in one datagram. */
  private finishFlight(records: Buffer[]): Buffer {
    const finished = this.nextHandshake(
      HandshakeType.finished,
      verifyData(this.master, "client", transcriptHash(this.transcript)),
    );
    this.transcript.push(finished);
    this.finished = finished;
    return Buffer.concat([
      ...records,
      this.record(ContentType.changeCipherSpec, 0, CHANGE_CIPHER_SPEC),
      this.record(ContentType.handshake, 1, finished),
    ]);
  }

  /** The client's Finished sent again under a new record number, as when the server's last flight was lost. */
  repeatFinished(): Buffer {
    return this.record(ContentType.handshake, 1, this.finished);
  }

  /** The verify_data the server's Finished must carry. */
  expectedServerFinished(): Buffer {
    return verifyData(this.master, "server", transcriptHash(this.transcript));
  }

  record(type: number, epoch: 0 | 1, plaintext: Buffer): Buffer {
    const seq = this.seq[epoch]!++;
    const cid = this.serverCid;
    if (epoch === 1 && cid && cid.length > 0) {
      const inner = Buffer.concat([plaintext, Buffer.from([type])]);
      const sealed = this.write!.seal(ContentType.tls12Cid, epoch, seq, inner, cid);
      return encodeRecord({ type: ContentType.tls12Cid, version: DTLS12, epoch, seq, cid, body: sealed });
    }
    const body = epoch === 1 ? this.write!.seal(type, epoch, seq, plaintext) : plaintext;
    return encodeRecord({ type, version: DTLS12, epoch, seq, body });
  }

  alert(level: number, description: number): Buffer {
    return this.record(ContentType.alert, 1, encodeAlert({ level, description }));
  }

  /** The records of a datagram from the server, epoch 1 ones opened. */
  open(datagram: Buffer): { type: number; epoch: number; plaintext: Buffer; cid?: Buffer }[] {
    const records = decodeRecords(datagram, this.ownCid().length);
    if (!records.ok) throw new Error(records.reason);
    return records.value.map((r) => {
      if (r.epoch === 0) return { type: r.type, epoch: 0, plaintext: r.body };
      const opened = this.read!.open(r.type, r.epoch, r.seq, r.body, r.cid);
      if (!opened.ok) throw new Error(opened.reason);
      if (!r.cid) return { type: r.type, epoch: 1, plaintext: opened.value };
      const inner = opened.value; // no padding from this server: the last byte is the real type
      return { type: inner.at(-1)!, epoch: 1, plaintext: inner.subarray(0, -1), cid: r.cid };
    });
  }

  /** The connection ID this client asked the server to put in its records, if any. */
  private ownCid(): Buffer {
    const ext = this.extensions.find((e) => e.type === ExtensionType.connectionId);
    return ext ? ext.data.subarray(1, 1 + ext.data[0]!) : Buffer.alloc(0);
  }

  /** Another ClientHello after the handshake, protected: an attempt to renegotiate. */
  renegotiate(): Buffer {
    return this.record(ContentType.handshake, 1, this.nextHandshake(HandshakeType.clientHello, Buffer.alloc(40)));
  }

  private nextHandshake(msgType: number, body: Buffer): Buffer {
    return encodeHandshake({ msgType, messageSeq: this.messageSeq++, body });
  }

  /** The whole handshake messages of a datagram, fragments put together by `reassembler`. */
  private handshakeBodies(datagram: Buffer, reassembler = new Reassembler()): Buffer[] {
    const records = decodeRecords(datagram);
    if (!records.ok) throw new Error(records.reason);
    return records.value
      .filter((r) => r.type === ContentType.handshake && r.epoch === 0)
      .flatMap((r) => {
        const f = decodeFragments(r.body);
        if (!f.ok) throw new Error(f.reason);
        return f.value.flatMap((x) => {
          const whole = reassembler.add(x);
          if (!whole.ok) throw new Error(whole.reason);
          return whole.value ? [encodeHandshake(whole.value)] : [];
        });
      });
  }
}
