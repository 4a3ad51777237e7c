import { randomBytes } from "node:crypto";
import { RecordChannel } from "./channel.js";
import type { Clock } from "./clock.js";
import {
  decodeFragments,
  encodeHandshake,
  fragmentHandshake,
  type HandshakeMessage,
  HandshakeType,
  HANDSHAKE_HEADER,
  Reassembler,
} from "./handshake.js";
import {
  AlertDescription,
  AlertLevel,
  CHANGE_CIPHER_SPEC,
  type ClientHello,
  decodeAlert,
  decodeFinished,
  decodePskIdentity,
  EMPTY_RENEGOTIATION_INFO_SCSV,
  encodeAlert,
  encodePskIdentity,
  encodeServerHello,
  type Extension,
  ExtensionType,
  findExtension,
} from "./messages.js";
import { verifyData, transcriptHash } from "./prf.js";
import { CIPHER_SUITES, type CipherSuite } from "./protection.js";
import { ContentType, decodeRecords, type DtlsRecord, DTLS12, RECORD_HEADER } from "./record.js";
import { DtlsError } from "./result.js";
import { type CandidateKeys, candidateKeys } from "./session-keys.js";

export interface SessionOptions {
  /** Candidate keys for a PSK identity, tried in order against the client's Finished; undefined: identity unknown. */
  lookupPsk(identity: Buffer): Promise<Buffer[] | undefined>;
  /** Sent in a ServerKeyExchange when set (RFC 4279 §2); without it the message is left out. */
  identityHint?: Buffer;
  clock: Clock;
  send(datagram: Buffer): void;
  onData(data: Buffer): void;
  onEstablished?(info: { identity: Buffer; keyIndex: number; suite: string }): void;
  /** The session ended: closed by either side, failed with `alert`, or timed out. Called once. */
  onClose(reason: string, alert?: number): void;
  /** Largest datagram sent; handshake messages beyond it are fragmented. */
  mtu?: number;
  /** Time a handshake may take before its state is dropped. */
  handshakeTimeoutMs?: number;
}

/** RFC 6347 §4.2.4.1: initial retransmission timer 1 s, doubled on each retransmission, at most 60 s. */
const INITIAL_RETRANSMIT_MS = 1000;
const MAX_RETRANSMIT_MS = 60_000;
/** Datagrams queued behind a PSK lookup; more are dropped. */
const MAX_QUEUED = 16;
/** Room a protected record needs beyond its plaintext: CBC's IV, MAC and a block of padding. */
const PROTECTION_OVERHEAD = 16 + 32 + 16;

type State = "keyExchange" | "finished" | "established" | "closed";
type FlightEntry = { type: number; epoch: 0 | 1; plaintext: Buffer };

/**
 * The server side of one DTLS 1.2 PSK association after its ClientHello passed the cookie check: it answers with
 * ServerHello [ServerKeyExchange] ServerHelloDone, finds the PSK whose keys open and verify the client's Finished,
 * answers with ChangeCipherSpec Finished, then carries application data. It owns no socket: datagrams come in
 * through {@link receive} and leave through `send`.
 */
export class ServerSession {
  private state: State = "keyExchange";
  private readonly channel: RecordChannel;
  private readonly suite: CipherSuite | undefined;
  private readonly transcript: Buffer[] = [];
  private readonly reassembler = new Reassembler();
  private readonly clientRandom: Buffer;
  private readonly serverRandom = randomBytes(32);
  private readonly extendedMasterSecret: boolean;
  private nextReceiveSeq: number;
  private nextSendSeq: number;
  private flight: FlightEntry[] = [];
  private retransmitMs = INITIAL_RETRANSMIT_MS;
  private cancelRetransmit: (() => void) | undefined;
  private readonly cancelDeadline: () => void;
  private candidates: CandidateKeys[] = [];
  private chain = Promise.resolve();
  private queued = 0;
  identity: Buffer | undefined;

  constructor(
    accepted: { hello: ClientHello; message: HandshakeMessage; recordSeq: number },
    private readonly opts: SessionOptions,
  ) {
    const { hello, message } = accepted;
    this.channel = new RecordChannel(accepted.recordSeq);
    this.clientRandom = Buffer.from(hello.random);
    this.nextReceiveSeq = message.messageSeq + 1;
    this.nextSendSeq = message.messageSeq;
    this.extendedMasterSecret = findExtension(hello.extensions, ExtensionType.extendedMasterSecret) !== undefined;
    this.suite = CIPHER_SUITES.find((s) => hello.cipherSuites.includes(s.id));
    this.cancelDeadline = opts.clock.setTimer(opts.handshakeTimeoutMs ?? 120_000, () => {
      if (this.state !== "established") this.end("handshake timed out");
    });
    const renegotiation = findExtension(hello.extensions, ExtensionType.renegotiationInfo);
    const refusal = !this.suite
      ? "no cipher suite in common"
      : !hello.compressionMethods.includes(0) || hello.clientVersion > DTLS12
        ? "no DTLS 1.2 without compression"
        : renegotiation && !renegotiation.data.equals(Buffer.from([0]))
          ? "renegotiation_info not empty"
          : undefined;
    if (refusal || !this.suite) {
      this.fail(new DtlsError(refusal ?? "", AlertDescription.handshakeFailure));
      return;
    }
    this.transcript.push(encodeHandshake(message));
    const extensions: Extension[] = [];
    if (this.extendedMasterSecret) extensions.push({ type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) });
    // RFC 5746 §3.6: answer a client that signals secure renegotiation; renegotiation itself is refused later.
    if (renegotiation || hello.cipherSuites.includes(EMPTY_RENEGOTIATION_INFO_SCSV)) {
      extensions.push({ type: ExtensionType.renegotiationInfo, data: Buffer.from([0]) });
    }
    const serverHello = encodeServerHello({
      serverVersion: DTLS12,
      random: this.serverRandom,
      sessionId: Buffer.alloc(0),
      cipherSuite: this.suite.id,
      extensions,
    });
    const messages = [this.handshake(HandshakeType.serverHello, serverHello)];
    if (opts.identityHint) {
      messages.push(this.handshake(HandshakeType.serverKeyExchange, encodePskIdentity(opts.identityHint)));
    }
    messages.push(this.handshake(HandshakeType.serverHelloDone, Buffer.alloc(0)));
    this.sendFlight(messages.map((plaintext) => ({ type: ContentType.handshake, epoch: 0, plaintext })));
    this.armRetransmit();
  }

  get established(): boolean {
    return this.state === "established";
  }

  get closed(): boolean {
    return this.state === "closed";
  }

  /** Takes one datagram from the peer; it is processed after those before it (a PSK lookup may be under way). */
  receive(datagram: Buffer): void {
    if (this.state === "closed" || this.queued >= MAX_QUEUED) return;
    this.queued++;
    this.chain = this.chain
      .then(() => this.process(datagram))
      .catch((e: unknown) =>
        this.fail(e instanceof DtlsError ? e : new DtlsError(String(e), AlertDescription.internalError)),
      )
      .finally(() => this.queued--);
  }

  /** Sends application data over the established session. */
  sendData(data: Buffer): void {
    if (this.state !== "established")
      throw new DtlsError("session not established", AlertDescription.unexpectedMessage);
    this.opts.send(this.channel.record(ContentType.applicationData, 1, data));
  }

  /** Ends the session with close_notify (RFC 5246 §7.2.1). */
  close(reason = "closed by the server"): void {
    if (this.state === "closed") return;
    this.sendAlert(AlertLevel.warning, AlertDescription.closeNotify);
    this.end(reason);
  }

  /** Ends the session without an alert: the peer has already dropped its side (it started a new handshake). */
  abandon(reason: string): void {
    this.end(reason);
  }

  private async process(datagram: Buffer): Promise<void> {
    const records = decodeRecords(datagram);
    if (!records.ok) return;
    for (const record of records.value) {
      if (this.state === "closed") return;
      await this.processRecord(record);
    }
  }

  private async processRecord(record: DtlsRecord): Promise<void> {
    if (record.epoch === 1 && this.state === "finished") return this.tryFinished(record);
    const opened = this.channel.open(record);
    if (!opened.ok) return; // RFC 6347 §4.1.2.7: invalid records are dropped silently.
    const plaintext = opened.value;
    switch (record.type) {
      case ContentType.alert:
        // Once keys are in use, an unprotected alert may be anyone's: it cannot end the session.
        return record.epoch === 1 || !this.channel.hasKeys ? this.onAlert(plaintext) : undefined;
      case ContentType.applicationData:
        if (this.state === "established" && record.epoch === 1) this.opts.onData(plaintext);
        return;
      case ContentType.handshake:
        return this.onHandshakeRecord(plaintext, record.epoch);
      default:
        return; // ChangeCipherSpec: the epoch of the next record says as much.
    }
  }

  private async onHandshakeRecord(plaintext: Buffer, epoch: number): Promise<void> {
    const fragments = decodeFragments(plaintext);
    if (!fragments.ok) return;
    for (const fragment of fragments.value) {
      if (fragment.messageSeq < this.nextReceiveSeq) {
        this.onRetransmittedFlight(fragment.msgType, epoch);
        continue;
      }
      if (fragment.messageSeq > this.nextReceiveSeq) continue; // ahead of a lost message: the peer sends it again
      const message = this.reassembler.add(fragment);
      if (!message.ok) throw new DtlsError(message.reason, AlertDescription.decodeError);
      if (message.value) await this.onHandshake(message.value);
    }
  }

  /** A peer that repeats its last flight lost ours (RFC 6347 §4.2.4): send it again. */
  private onRetransmittedFlight(msgType: number, epoch: number): void {
    const repeatsHello = this.state === "keyExchange" && msgType === HandshakeType.clientHello && epoch === 0;
    const repeatsFinished = this.state === "established" && msgType === HandshakeType.finished && epoch === 1;
    if (repeatsHello || repeatsFinished) this.transmit();
  }

  private async onHandshake(message: HandshakeMessage): Promise<void> {
    if (this.state === "established" && message.msgType === HandshakeType.clientHello) {
      // RFC 5746 §4.4 / RFC 5246 §7.2.2: renegotiation is refused with a warning; the session goes on.
      this.nextReceiveSeq++;
      return this.sendAlert(AlertLevel.warning, AlertDescription.noRenegotiation);
    }
    if (this.state !== "keyExchange" || message.msgType !== HandshakeType.clientKeyExchange) {
      throw new DtlsError(`unexpected handshake message ${message.msgType}`, AlertDescription.unexpectedMessage);
    }
    const identity = decodePskIdentity(message.body);
    if (!identity.ok) throw new DtlsError(identity.reason, AlertDescription.decodeError);
    this.nextReceiveSeq++;
    this.stopRetransmit();
    this.transcript.push(encodeHandshake(message));
    this.identity = Buffer.from(identity.value);
    const psks = await this.opts.lookupPsk(this.identity);
    if (!psks || psks.length === 0) throw new DtlsError("unknown PSK identity", AlertDescription.unknownPskIdentity);
    const randoms = { client: this.clientRandom, server: this.serverRandom };
    this.candidates = candidateKeys(psks, this.suite!, this.transcript, randoms, this.extendedMasterSecret);
    this.state = "finished";
  }

  /** Tries each candidate key on the client's Finished; the one that opens and verifies it is the session's. */
  private tryFinished(record: DtlsRecord): void {
    if (record.type !== ContentType.handshake) return;
    const expected = (master: Buffer) => verifyData(master, "client", transcriptHash(this.transcript));
    for (const candidate of this.candidates) {
      const opened = this.channel.open(record, candidate.read);
      if (!opened.ok) continue;
      const fragments = decodeFragments(opened.value);
      const f = fragments.ok ? fragments.value[0] : undefined;
      if (!f || f.msgType !== HandshakeType.finished || f.messageSeq !== this.nextReceiveSeq) continue;
      const verify = decodeFinished(f.body);
      if (!verify.ok || !verify.value.equals(expected(candidate.master))) continue;
      return this.finish(candidate, { msgType: f.msgType, messageSeq: f.messageSeq, body: Buffer.from(f.body) });
    }
    this.fail(new DtlsError("no candidate key verifies the client's Finished", AlertDescription.decryptError));
  }

  private finish(candidate: CandidateKeys, clientFinished: HandshakeMessage): void {
    this.nextReceiveSeq++;
    this.channel.useKeys(candidate.read, candidate.write);
    this.transcript.push(encodeHandshake(clientFinished));
    const serverVerify = verifyData(candidate.master, "server", transcriptHash(this.transcript));
    this.candidates = [];
    this.sendFlight([
      { type: ContentType.changeCipherSpec, epoch: 0, plaintext: CHANGE_CIPHER_SPEC },
      { type: ContentType.handshake, epoch: 1, plaintext: this.handshake(HandshakeType.finished, serverVerify) },
    ]);
    this.transcript.length = 0;
    this.state = "established";
    this.cancelDeadline();
    this.opts.onEstablished?.({ identity: this.identity!, keyIndex: candidate.index, suite: this.suite!.name });
  }

  private onAlert(plaintext: Buffer): void {
    const alert = decodeAlert(plaintext);
    if (!alert.ok) return;
    if (alert.value.description === AlertDescription.closeNotify) return this.close("closed by the client");
    if (alert.value.level === AlertLevel.fatal)
      this.end(`client sent fatal alert ${alert.value.description}`, alert.value.description);
  }

  /** The next handshake message this server sends, added to the transcript. */
  private handshake(msgType: number, body: Buffer): Buffer {
    const wire = encodeHandshake({ msgType, messageSeq: this.nextSendSeq++, body });
    this.transcript.push(wire);
    return wire;
  }

  private sendFlight(entries: FlightEntry[]): void {
    this.flight = entries;
    this.transmit();
  }

  /** Sends the current flight as records packed into datagrams of at most the MTU, fragmenting big messages. */
  private transmit(): void {
    const mtu = this.opts.mtu ?? 1200;
    const room = mtu - RECORD_HEADER - PROTECTION_OVERHEAD - HANDSHAKE_HEADER;
    const datagrams: Buffer[][] = [[]];
    let size = 0;
    for (const { type, epoch, plaintext } of this.flight) {
      const parts = type === ContentType.handshake ? this.refragment(plaintext, room) : [plaintext];
      for (const part of parts) {
        const record = this.channel.record(type, epoch, part);
        if (size + record.length > mtu && size > 0) {
          datagrams.push([]);
          size = 0;
        }
        datagrams.at(-1)!.push(record);
        size += record.length;
      }
    }
    for (const d of datagrams) this.opts.send(Buffer.concat(d));
  }

  private refragment(wire: Buffer, room: number): Buffer[] {
    if (wire.length - HANDSHAKE_HEADER <= room) return [wire];
    const body = wire.subarray(HANDSHAKE_HEADER);
    return fragmentHandshake({ msgType: wire[0]!, messageSeq: wire.readUInt16BE(4), body }, room);
  }

  private armRetransmit(): void {
    this.cancelRetransmit = this.opts.clock.setTimer(this.retransmitMs, () => {
      if (this.state !== "keyExchange") return;
      this.retransmitMs = Math.min(this.retransmitMs * 2, MAX_RETRANSMIT_MS);
      this.transmit();
      this.armRetransmit();
    });
  }

  private stopRetransmit(): void {
    this.cancelRetransmit?.();
    this.cancelRetransmit = undefined;
  }

  private sendAlert(level: number, description: number): void {
    const epoch = this.channel.hasKeys ? 1 : 0;
    this.opts.send(this.channel.record(ContentType.alert, epoch, encodeAlert({ level, description })));
  }

  private fail(error: DtlsError): void {
    if (this.state === "closed") return;
    this.sendAlert(AlertLevel.fatal, error.alert);
    this.end(error.message, error.alert);
  }

  private end(reason: string, alert?: number): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.stopRetransmit();
    this.cancelDeadline?.();
    this.opts.onClose(reason, alert);
  }
}
