import type { CheckClientCertificate, ClientIdentity, ServerCertificate } from "./certificate-exchange.js";
import type { Clock } from "./clock.js";
import type { SessionCache } from "./session-cache.js";

export interface SessionOptions {
  /** Candidate keys for a PSK identity, tried in order against the client's Finished; undefined: identity unknown. */
  lookupPsk?(identity: Buffer): Promise<Buffer[] | undefined>;
  /** The server's chain and key; with `checkClientCertificate` it enables the ECDHE_ECDSA suites. */
  certificate?: ServerCertificate;
  checkClientCertificate?: CheckClientCertificate;
  /** Sent in a ServerKeyExchange when set (RFC 4279 §2); without it the message is left out. */
  identityHint?: Buffer;
  clock: Clock;
  send: (datagram: Buffer) => void;
  onData: (data: Buffer) => void;
  onEstablished?: (info: EstablishedInfo) => void;
  /** The session ended: closed by either side, failed with `alert`, or timed out. Called once. */
  onClose: (reason: string, alert?: number) => void;
  /** Largest datagram sent; handshake messages beyond it are fragmented. */
  mtu?: number;
  /** Time a handshake may take before its state is dropped. */
  handshakeTimeoutMs?: number;
  /** Where finished sessions are kept for resumption; without it the ServerHello's session id is empty. */
  sessionCache?: SessionCache;
  /** The connection ID (RFC 9146) handed to a client that offers the extension; without it none is negotiated. */
  connectionId?: Buffer;
  /** An authentic tls12_cid record, the newest so far, came in a datagram from `from` (RFC 9146 §6). */
  onMoved?: (from: unknown) => void;
}

/** A session's peer: its PSK identity and which candidate key matched, or its certificate's checked identity. */
export interface EstablishedInfo {
  identity: Buffer;
  keyIndex: number;
  suite: string;
  client?: ClientIdentity;
  /** Set when the session was resumed with an abbreviated handshake (RFC 5246 §7.3). */
  resumed?: true;
}
