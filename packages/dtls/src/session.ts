import { randomBytes } from "node:crypto";
import { unpooled } from "./bytes.js";
import { CertificateExchange, type ClientIdentity } from "./certificate-exchange.js";
import { RecordChannel } from "./channel.js";
import { decodeFragments, encodeHandshake, type HandshakeMessage, HandshakeType, Reassembler } from "./handshake.js";
import { HandshakeState } from "./handshake-state.js";
import {
  AlertDescription,
  AlertLevel,
  type ClientHello,
  decodeAlert,
  decodePskIdentity,
  encodeAlert,
  encodePskIdentity,
  encodeServerHello,
} from "./messages.js";
import { chooseSuite, servedSuite } from "./negotiate.js";
import { pskPremasterSecret, verifyData, transcriptHash } from "./prf.js";
import type { CipherSuite } from "./protection.js";
import { finishedFlight, packFlight } from "./flight.js";
import { FlightSender } from "./flight-sender.js";
import {
  helloRefusal,
  negotiateConnectionId,
  offersExtendedMasterSecret,
  resumable,
  serverHelloExtensions,
} from "./server-hello.js";
import type { CachedSession } from "./session-cache.js";
import { ContentType, decodeRecords, type DtlsRecord, DTLS12 } from "./record.js";
import { DtlsError } from "./result.js";
import { ReceiveQueue } from "./receive-queue.js";
import type { EstablishedInfo, SessionOptions } from "./session-options.js";
import { type CandidateKeys, resumedKeys } from "./session-keys.js";

const NO_SESSION_ID = Buffer.alloc(0);

/** `finished`: a full handshake awaits the client's Finished; `resumed`: an abbreviated one does. */
type State = "keyExchange" | "finished" | "resumed" | "established" | "closed";

/**
 * The server side of one DTLS 1.2 association after its ClientHello passed the cookie check. With a PSK suite it
 * answers ServerHello [ServerKeyExchange] ServerHelloDone and finds the PSK whose keys open and verify the client's
 * Finished; with an ECDHE suite it sends its certificate and a CertificateRequest and takes the client's
 * certificate flight ({@link CertificateExchange}). Then ChangeCipherSpec Finished, then application data. It owns
 * no socket: datagrams come in through {@link receive} and leave through `send`. What only the handshake needs is in
 * a {@link HandshakeState} dropped when it ends; its Finished, once the client's data shows it arrived.
 */
export class ServerSession {
  private state: State = "keyExchange";
  private readonly channel: RecordChannel;
  private readonly suite: CipherSuite | undefined;
  private readonly sessionId: Buffer;
  private hs: HandshakeState | undefined;
  private flights: FlightSender | undefined;
  /** The server's Finished once the handshake is over, until the client shows it arrived (its first data). */
  private lastFinished: Buffer | undefined;
  private nextReceiveSeq: number;
  private nextSendSeq: number;
  private client: ClientIdentity | undefined;
  private readonly queue = new ReceiveQueue();
  private opts: SessionOptions;
  identity: Buffer | undefined;
  /** The connection ID the client puts in its records (RFC 9146), when it asked for one. */
  readonly connectionId: Buffer | undefined;

  constructor(accepted: { hello: ClientHello; message: HandshakeMessage; recordSeq: number }, opts: SessionOptions) {
    this.opts = opts;
    const { hello, message } = accepted;
    this.channel = new RecordChannel(accepted.recordSeq);
    const waiting = () => this.state === "keyExchange" || this.state === "resumed";
    const flights = new FlightSender(this.channel, opts.clock, (d) => this.opts.send(d), opts.mtu ?? 1200, waiting);
    this.flights = flights;
    const hs = (this.hs = new HandshakeState(Buffer.from(hello.random), offersExtendedMasterSecret(hello)));
    this.nextReceiveSeq = message.messageSeq + 1;
    this.nextSendSeq = message.messageSeq;
    const { certificate, checkClientCertificate } = opts;
    const have = { psk: !!opts.lookupPsk, certificate: checkClientCertificate && certificate?.keyExchange };
    hs.resumed = resumable(hello, opts.sessionCache, (id) => !!servedSuite(id, have));
    this.suite = hs.resumed ? servedSuite(hs.resumed.suiteId, have) : chooseSuite(hello, have);
    this.sessionId = hs.resumed?.id ?? (opts.sessionCache ? randomBytes(32) : NO_SESSION_ID);
    const cid = opts.connectionId && negotiateConnectionId(hello, opts.connectionId);
    if (cid) this.channel.useConnectionIds(opts.connectionId!, cid.peer && unpooled(cid.peer));
    this.connectionId = cid ? opts.connectionId : undefined;
    if (this.suite && this.suite.keyExchange !== "psk" && !hs.resumed) {
      hs.exchange = new CertificateExchange(certificate!, checkClientCertificate!);
    }
    hs.cancelDeadline = opts.clock.setTimer(opts.handshakeTimeoutMs ?? 120_000, () => {
      if (this.state !== "established") this.end("handshake timed out");
    });
    const refusal = helloRefusal(hello, this.suite);
    if (refusal || !this.suite) {
      this.fail(new DtlsError(refusal ?? "", AlertDescription.handshakeFailure));
      return;
    }
    hs.transcript.push(encodeHandshake(message));
    const extensions = serverHelloExtensions(hello, hs.extendedMasterSecret, !!hs.exchange, cid?.extension);
    const serverHello = encodeServerHello({
      ...{ serverVersion: DTLS12, random: hs.serverRandom, sessionId: this.sessionId },
      ...{ cipherSuite: this.suite.id, extensions },
    });
    const messages = [this.handshake(HandshakeType.serverHello, serverHello)];
    if (hs.resumed) {
      this.resume(hs, hs.resumed, messages[0]!);
      return;
    }
    if (hs.exchange) {
      for (const m of hs.exchange.serverMessages(hs.clientRandom, hs.serverRandom)) {
        messages.push(this.handshake(m.msgType, m.body));
      }
    } else if (opts.identityHint) {
      messages.push(this.handshake(HandshakeType.serverKeyExchange, encodePskIdentity(opts.identityHint)));
    }
    messages.push(this.handshake(HandshakeType.serverHelloDone, Buffer.alloc(0)));
    const flight = messages.map((plaintext) => ({ type: ContentType.handshake, epoch: 0 as const, plaintext }));
    flights.send(flight, true);
  }

  /**
   * The abbreviated handshake (RFC 5246 §7.3): ServerHello, ChangeCipherSpec and Finished under keys from the cached
   * master secret and the new randoms; the client's ChangeCipherSpec and Finished end it.
   */
  private resume(hs: HandshakeState, cached: CachedSession, serverHello: Buffer): void {
    this.identity = cached.identity;
    this.client = cached.client;
    const candidate = resumedKeys(cached, this.suite!, hs.randoms);
    this.channel.useKeys(candidate.read, candidate.write);
    hs.candidates = [candidate];
    const verify = verifyData(cached.master, "server", transcriptHash(hs.transcript));
    const finished = this.handshake(HandshakeType.finished, verify);
    this.state = "resumed";
    this.flights!.send(
      [{ type: ContentType.handshake, epoch: 0, plaintext: serverHello }, ...finishedFlight(finished)],
      true,
    );
  }

  get established(): boolean {
    return this.state === "established";
  }

  get closed(): boolean {
    return this.state === "closed";
  }

  /**
   * Takes one datagram from the peer; it is processed after those before it (a PSK lookup may be under way), at once
   * when none waits. `from` is handed to `onMoved` when the datagram carries an authentic tls12_cid record newer than
   * any before.
   */
  receive(datagram: Buffer, from?: unknown): void {
    const records = decodeRecords(datagram, this.channel.cidLength);
    if (this.closed || !records.ok) return;
    const list = records.value;
    if (!this.queue.idle) return this.wait(() => this.process(list, from));
    for (let i = 0; i < list.length && !this.closed; i++) {
      let waits: Promise<void> | void;
      try {
        waits = this.processRecord(list[i]!, from);
      } catch (e) {
        return this.failWith(e);
      }
      // A handshake message in progress: the datagram's other records, and the datagrams after it, wait for it.
      if (waits) return this.wait(() => waits.then(() => this.process(list.slice(i + 1), from)));
    }
  }

  private wait(task: () => Promise<void>): void {
    this.queue.push(task, (e) => this.failWith(e));
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
    this.forgetSession(); // the server ended it (a device refused since): no resumption
    this.end(reason);
  }

  /** Ends the session without an alert: its peer is gone (it started a new handshake, or another took its address). */
  abandon(reason: string): void {
    this.end(reason);
  }

  private async process(records: DtlsRecord[], from: unknown): Promise<void> {
    for (const record of records) {
      if (this.closed) return;
      await this.processRecord(record, from);
    }
  }

  /** One record; a promise only for a handshake message, whose taking may wait (a PSK lookup, a certificate check). */
  private processRecord(record: DtlsRecord, from: unknown): Promise<void> | void {
    if (record.epoch === 1 && this.state === "finished") return this.tryFinished(record);
    const opened = this.channel.open(record);
    if (!opened.ok) return; // RFC 6347 §4.1.2.7: invalid records are dropped silently.
    const { plaintext, type } = opened.value;
    if (record.cid && opened.value.newest && this.state === "established") this.opts.onMoved?.(from);
    switch (type) {
      case ContentType.alert:
        // Once keys are in use, an unprotected alert may be anyone's: it cannot end the session.
        return record.epoch === 1 || !this.channel.hasKeys ? this.onAlert(plaintext) : undefined;
      case ContentType.applicationData:
        if (this.state !== "established" || record.epoch !== 1) return;
        this.lastFinished = undefined; // the client's data under the new keys: it has the server's Finished
        this.opts.onData(plaintext); // what the callback returns is not a handshake step to wait for
        return;
      case ContentType.handshake:
        return this.onHandshakeRecord(plaintext, record);
      default:
        return; // ChangeCipherSpec: the epoch of the next record says as much.
    }
  }

  /** Epoch 0 has no MAC: only a record whose message the handshake took moves its replay window. */
  private async onHandshakeRecord(plaintext: Buffer, { epoch, seq }: DtlsRecord): Promise<void> {
    const fragments = decodeFragments(plaintext);
    if (!fragments.ok) return;
    const expected = this.nextReceiveSeq;
    for (const fragment of fragments.value) {
      if (fragment.messageSeq < this.nextReceiveSeq) {
        this.onRetransmittedFlight(fragment.msgType, epoch);
        continue;
      }
      if (fragment.messageSeq > this.nextReceiveSeq) continue; // ahead of a lost message: the peer sends it again
      const message = (this.hs?.reassembler ?? new Reassembler()).add(fragment);
      if (!message.ok) throw new DtlsError(message.reason, AlertDescription.decodeError);
      if (message.value) await this.onHandshake(message.value);
    }
    if (epoch === 0 && this.nextReceiveSeq > expected) this.channel.consumed(seq);
  }

  /** A peer that repeats its last flight lost ours (RFC 6347 §4.2.4): send it again. */
  private onRetransmittedFlight(msgType: number, epoch: number): void {
    const awaiting = this.state === "keyExchange" || this.state === "resumed";
    const repeatsHello = awaiting && msgType === HandshakeType.clientHello && epoch === 0;
    const repeatsFinished = this.state === "established" && msgType === HandshakeType.finished && epoch === 1;
    if (repeatsHello) this.flights?.transmit();
    if (repeatsFinished && this.lastFinished) this.resendFinished(this.lastFinished);
  }

  /** ChangeCipherSpec and Finished again, numbered anew: the client repeats its Finished, so ours was lost. */
  private resendFinished(finished: Buffer): void {
    for (const d of packFlight(finishedFlight(finished), this.channel, this.opts.mtu ?? 1200)) this.opts.send(d);
  }

  private async onHandshake(message: HandshakeMessage): Promise<void> {
    if (this.state === "established" && message.msgType === HandshakeType.clientHello) {
      // RFC 5746 §4.4 / RFC 5246 §7.2.2: renegotiation is refused with a warning; the session goes on.
      this.nextReceiveSeq++;
      return this.sendAlert(AlertLevel.warning, AlertDescription.noRenegotiation);
    }
    if (this.state === "resumed" && message.msgType === HandshakeType.finished) return this.resumedFinished(message);
    const hs = this.hs;
    if (this.state === "keyExchange" && hs?.exchange) return this.onCertificateMessage(hs, message);
    if (!hs || this.state !== "keyExchange" || message.msgType !== HandshakeType.clientKeyExchange) {
      throw new DtlsError(`unexpected handshake message ${message.msgType}`, AlertDescription.unexpectedMessage);
    }
    const identity = decodePskIdentity(message.body);
    if (!identity.ok) throw new DtlsError(identity.reason, AlertDescription.decodeError);
    this.nextReceiveSeq++;
    this.flights?.stop();
    hs.transcript.push(encodeHandshake(message));
    this.identity = unpooled(identity.value);
    const psks = await this.opts.lookupPsk!(this.identity);
    if (this.closed) return; // timed out or closed while the lookup ran
    if (!psks || psks.length === 0) throw new DtlsError("unknown PSK identity", AlertDescription.unknownPskIdentity);
    hs.takePremasters(psks.map(pskPremasterSecret), this.suite!);
    this.state = "finished";
  }

  /** Certificate, ClientKeyExchange, CertificateVerify of an ECDHE handshake; then the Finished is awaited. */
  private async onCertificateMessage(hs: HandshakeState, message: HandshakeMessage): Promise<void> {
    const step = await hs.exchange!.take(message, hs.transcript);
    if (this.closed) return; // timed out or closed while the check ran
    this.nextReceiveSeq++;
    this.flights?.stop();
    hs.transcript.push(encodeHandshake(message));
    if (step.premaster) hs.takePremasters([step.premaster], this.suite!);
    if (step.client) {
      this.client = step.client;
      this.identity = step.client.identity;
      this.state = "finished";
    }
  }

  /** Tries each candidate key on the client's Finished; the one that opens and verifies it is the session's. */
  private tryFinished(record: DtlsRecord): void {
    const hs = this.hs!;
    const found = hs.verifyClientFinished(record, this.channel, this.nextReceiveSeq);
    if (found) return this.finish(hs, found.candidate, found.message);
    this.fail(new DtlsError("no candidate key verifies the client's Finished", AlertDescription.decryptError));
  }

  private finish(hs: HandshakeState, candidate: CandidateKeys, clientFinished: HandshakeMessage): void {
    this.nextReceiveSeq++;
    this.channel.useKeys(candidate.read, candidate.write);
    hs.transcript.push(encodeHandshake(clientFinished));
    const serverVerify = verifyData(candidate.master, "server", transcriptHash(hs.transcript));
    // The last flight is the Finished alone, kept in memory of its own for a client that repeats its own Finished.
    this.flights?.stop();
    this.flights = undefined;
    this.lastFinished = unpooled(this.handshake(HandshakeType.finished, serverVerify));
    this.resendFinished(this.lastFinished);
    const { sessionId: id, suite, identity, client } = this;
    const entry = { id, suiteId: suite!.id, extended: hs.extendedMasterSecret, identity: identity!, client };
    if (id.length > 0)
      this.opts.sessionCache?.put({ ...entry, master: unpooled(candidate.master), keyIndex: candidate.index });
    this.established_(candidate.index);
  }

  /** The client's Finished of an abbreviated handshake: it covers ClientHello, ServerHello, the server's Finished. */
  private resumedFinished(message: HandshakeMessage): void {
    const candidate = this.hs!.candidates[0]!;
    if (!this.hs!.verifiesFinished(candidate, message.body)) {
      throw new DtlsError("the client's Finished does not verify", AlertDescription.decryptError);
    }
    this.nextReceiveSeq++;
    this.flights?.stop();
    this.flights = undefined; // the client sent the last flight: nothing of ours to repeat
    this.established_(candidate.index, true);
  }

  /** Drops the handshake's state and what the session's options held only for it (the PSK lookup, the check). */
  private established_(keyIndex: number, resumed?: true): void {
    this.state = "established";
    this.hs?.cancelDeadline();
    this.hs = undefined;
    const opts = this.opts;
    const { clock, send, onData, onClose, onMoved, sessionCache, mtu } = opts;
    this.opts = { clock, send, onData, onClose, onMoved, sessionCache, mtu };
    const info: EstablishedInfo = { identity: this.identity!, keyIndex, suite: this.suite!.name, client: this.client };
    if (resumed) info.resumed = true;
    opts.onEstablished?.(info);
  }

  private onAlert(plaintext: Buffer): void {
    const alert = decodeAlert(plaintext);
    if (!alert.ok) return;
    if (alert.value.description === AlertDescription.closeNotify) {
      // A session closed properly by the client may be resumed later.
      this.sendAlert(AlertLevel.warning, AlertDescription.closeNotify);
      return this.end("closed by the client");
    }
    if (alert.value.level !== AlertLevel.fatal) return;
    this.forgetSession();
    this.end(`client sent fatal alert ${alert.value.description}`, alert.value.description);
  }

  /** The next handshake message this server sends, added to the transcript. */
  private handshake(msgType: number, body: Buffer): Buffer {
    const wire = encodeHandshake({ msgType, messageSeq: this.nextSendSeq++, body });
    this.hs!.transcript.push(wire);
    return wire;
  }

  private sendAlert(level: number, description: number): void {
    const epoch = this.channel.hasKeys ? 1 : 0;
    this.opts.send(this.channel.record(ContentType.alert, epoch, encodeAlert({ level, description })));
  }

  /** A throw while taking a datagram: a DtlsError's alert, else internal_error (a bug, or a callback that threw). */
  private failWith(e: unknown): void {
    this.fail(e instanceof DtlsError ? e : new DtlsError(String(e), AlertDescription.internalError));
  }

  private fail(error: DtlsError): void {
    if (this.state === "closed") return;
    this.sendAlert(AlertLevel.fatal, error.alert);
    this.forgetSession();
    this.end(error.message, error.alert);
  }

  /** RFC 5246 §7.2.2: a session ended by a fatal alert (or by the server) is not resumed. */
  private forgetSession(): void {
    if (this.sessionId.length > 0) this.opts.sessionCache?.delete(this.sessionId);
  }

  private end(reason: string, alert?: number): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.flights?.stop();
    this.flights = undefined;
    this.lastFinished = undefined;
    this.hs?.cancelDeadline();
    this.hs = undefined;
    this.opts.onClose(reason, alert);
  }
}
