import { randomBytes } from "node:crypto";
import type { RemoteInfo, Socket } from "node:dgram";
import { type Clock, systemClock } from "./clock.js";
import { CookieJar } from "./cookie.js";
import { helloGate } from "./gate.js";
import { ContentType, RECORD_HEADER } from "./record.js";
import { type CheckClientCertificate, loadServerCertificate } from "./certificate-exchange.js";
import { SessionCache, type SessionCacheOptions } from "./session-cache.js";
import { ServerSession } from "./session.js";
import type { EstablishedInfo, SessionOptions } from "./session-options.js";

/** One client of the server: its address (which moves with its connection ID) and its session. */
export interface DtlsPeer {
  address: string;
  port: number;
  session: ServerSession;
}

export interface DtlsServerOptions {
  /**
   * Enables the PSK suites; `from` is the client's address (for the caller's logs and limits). Undefined or no key:
   * the identity is unknown (unknown_psk_identity). A rejection (the key store could not answer) ends the handshake
   * with internal_error.
   */
  lookupPsk?(identity: Buffer, from: { address: string; port: number }): Promise<Buffer[] | undefined>;
  /**
   * The server's chain (its own certificate first) and key in PEM; with the check, the ECDHE_ECDSA suites for a P-256
   * key, the ECDHE_RSA one for an RSA key.
   */
  certificate?: { chain: string; key: string };
  /** Whether a client's chain (DER) is trusted and whose it is; possession of its key is checked here already. */
  checkClientCertificate?(chain: Buffer[], from: { address: string; port: number }): ReturnType<CheckClientCertificate>;
  identityHint?: Buffer;
  clock?: Clock;
  mtu?: number;
  handshakeTimeoutMs?: number;
  /** Handshakes in progress at once; ClientHellos with a good cookie beyond it are dropped. */
  maxHandshakes?: number;
  /** Session resumption (RFC 5246 §7.3): the cache's count and age limits, or false for full handshakes only. */
  sessionCache?: SessionCacheOptions | false;
  /** Connection IDs (RFC 9146) of this many bytes for clients that ask; 0 negotiates none. Default 6. */
  connectionIdLength?: number;
  onData(peer: DtlsPeer, data: Buffer): void;
  onEstablished?(peer: DtlsPeer, info: EstablishedInfo): void;
  onClose?(peer: DtlsPeer, reason: string, alert?: number): void;
  /** A client with a connection ID now sends from another address; `peer` holds the new one (RFC 9146 §6). */
  onMoved?(peer: DtlsPeer, from: { address: string; port: number }): void;
}

/**
 * DTLS over a UDP socket the caller owns: a session per remote address, created only for a ClientHello that returns
 * this server's cookie, and at most `maxHandshakes` of them still handshaking.
 */
export class DtlsServer {
  private readonly sessions = new Map<string, DtlsPeer>();
  private readonly byConnectionId = new Map<string, DtlsPeer>();
  private readonly jar: CookieJar;
  private readonly clock: Clock;
  private handshaking = 0;
  private readonly certificate: SessionOptions["certificate"];
  private readonly cache: SessionCache | undefined;
  private readonly listener = (msg: Buffer, rinfo: RemoteInfo) => this.onDatagram(msg, rinfo.address, rinfo.port);

  constructor(
    private readonly socket: Socket,
    private readonly opts: DtlsServerOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
    this.jar = new CookieJar(() => this.clock.now());
    if (opts.sessionCache !== false) this.cache = new SessionCache(this.clock, opts.sessionCache);
    if (opts.certificate) this.certificate = loadServerCertificate(opts.certificate.chain, opts.certificate.key);
    socket.on("message", this.listener);
  }

  /** Sessions by `address:port`, established or handshaking. */
  get size(): number {
    return this.sessions.size;
  }

  /** Sessions still handshaking (at most `maxHandshakes`): the state a client with a good cookie costs. */
  get handshakes(): number {
    return this.handshaking;
  }

  /** Sessions kept for resumption. */
  get cachedSessions(): number {
    return this.cache?.size ?? 0;
  }

  /** Forgets the cached sessions of an identity, so its next handshake is a full one (its key or rights changed). */
  forgetIdentity(identity: Buffer): void {
    this.cache?.forgetIdentity(identity);
  }

  /** Sends close_notify to every session and stops reading the socket (which stays the caller's to close). */
  close(): void {
    this.socket.off("message", this.listener);
    for (const peer of [...this.sessions.values()]) peer.session.close("server closing");
  }

  private onDatagram(msg: Buffer, address: string, port: number): void {
    const cidLength = this.opts.connectionIdLength ?? 6;
    if (msg[0] === ContentType.tls12Cid) {
      // Routed by connection ID whatever the address; the session moves the peer once a record authenticates.
      const cid = msg.length >= 11 + cidLength ? msg.subarray(11, 11 + cidLength).toString("hex") : "";
      return this.byConnectionId.get(cid)?.session.receive(msg, { address, port });
    }
    const key = `${address}:${port}`;
    const existing = this.sessions.get(key);
    // An established client that sends an epoch 0 handshake record is starting over (a device that restarted):
    // it goes through the cookie exchange again, and only then replaces its session (RFC 6347 §4.2.8).
    const restart = msg.length >= RECORD_HEADER && msg[0] === ContentType.handshake && msg.readUInt16BE(3) === 0;
    if (existing && !(existing.session.established && restart)) return existing.session.receive(msg);
    const verdict = helloGate(msg, key, this.jar);
    if (verdict.kind === "drop") return;
    if (verdict.kind === "verify") return this.send(verdict.reply, address, port);
    if (this.handshaking >= (this.opts.maxHandshakes ?? 1000)) return;
    existing?.session.abandon("client started a new handshake");
    this.start(verdict, key, address, port);
  }

  private start(
    accepted: ConstructorParameters<typeof ServerSession>[0],
    key: string,
    address: string,
    port: number,
  ): void {
    let peer: DtlsPeer | undefined;
    let counted = true;
    const cidLength = this.opts.connectionIdLength ?? 6;
    this.handshaking++;
    const uncount = () => {
      if (counted) this.handshaking--;
      counted = false;
    };
    const session = new ServerSession(accepted, {
      lookupPsk: this.opts.lookupPsk && ((identity) => this.opts.lookupPsk!(identity, { address, port })),
      identityHint: this.opts.identityHint,
      certificate: this.certificate,
      checkClientCertificate:
        this.opts.checkClientCertificate && ((chain) => this.opts.checkClientCertificate!(chain, { address, port })),
      clock: this.clock,
      mtu: this.opts.mtu,
      handshakeTimeoutMs: this.opts.handshakeTimeoutMs,
      sessionCache: this.cache,
      connectionId: cidLength > 0 ? this.freshConnectionId(cidLength) : undefined,
      send: (d) => (peer ? this.send(d, peer.address, peer.port) : this.send(d, address, port)),
      onMoved: (from) => peer && this.move(peer, from as { address: string; port: number }),
      onData: (d) => peer && this.opts.onData(peer, d),
      onEstablished: (info) => {
        uncount();
        if (peer) this.opts.onEstablished?.(peer, info);
      },
      onClose: (reason, alert) => {
        uncount();
        if (peer && this.sessions.get(`${peer.address}:${peer.port}`) === peer) {
          this.sessions.delete(`${peer.address}:${peer.port}`);
        }
        if (session.connectionId) this.byConnectionId.delete(session.connectionId.toString("hex"));
        if (peer) this.opts.onClose?.(peer, reason, alert);
      },
    });
    peer = { address, port, session };
    if (session.closed) return;
    this.sessions.set(key, peer);
    if (session.connectionId) this.byConnectionId.set(session.connectionId.toString("hex"), peer);
  }

  /** A connection ID no session holds. */
  private freshConnectionId(length: number): Buffer {
    for (;;) {
      const cid = randomBytes(length);
      if (!this.byConnectionId.has(cid.toString("hex"))) return cid;
    }
  }

  /**
   * The peer's authentic newest record came from `to`: answers go there, and its address finds it (§6). A session
   * that held `to` before is ended without an alert: one address and port is one flow, now the moved client's, so
   * the other's device is no longer there (and a caller keying its sessions by address never sees two at once).
   */
  private move(peer: DtlsPeer, to: { address: string; port: number }): void {
    if (peer.address === to.address && peer.port === to.port) return;
    const from = { address: peer.address, port: peer.port };
    const toKey = `${to.address}:${to.port}`;
    const displaced = this.sessions.get(toKey);
    if (displaced && displaced !== peer) displaced.session.abandon("another session moved to its address");
    if (this.sessions.get(`${from.address}:${from.port}`) === peer)
      this.sessions.delete(`${from.address}:${from.port}`);
    peer.address = to.address;
    peer.port = to.port;
    this.sessions.set(toKey, peer);
    this.opts.onMoved?.(peer, from);
  }

  private send(datagram: Buffer, address: string, port: number): void {
    this.socket.send(datagram, port, address);
  }
}
