import type { Logger } from "pino";
import {
  Lease,
  type DeviceCredentials,
  type DeviceLeases,
  type ProtocolName,
  type RegistryClient,
} from "@iot/adapter-core";
import type { Peer } from "./message-layer.js";

/**
 * What the DTLS listener feeds the adapter: the PSK lookup of a handshake, the sessions that completed or ended, and
 * the decrypted datagrams of a session (`send` encrypts the answer on the same session).
 */
export interface SecureTarget {
  /** Candidate keys of a PSK identity (a deviceUsername, an LwM2M endpoint name); undefined when refused. */
  lookupPsk(identity: Buffer): Promise<Buffer[] | undefined>;
  /** A handshake completed: `peer`'s requests are now the device's; `end` closes the DTLS session (a kick). */
  established(peer: Peer, identity: Buffer, end: (reason: string) => void): void;
  handle(datagram: Buffer, peer: Peer, send: (datagram: Buffer) => void): void;
  /** The DTLS session of `peer` ended (close_notify, a failed record, the server's own close). */
  closed(peer: Peer): void;
  /** `peer`'s session now comes from another address (its DTLS Connection ID, RFC 9146); `from` is the old one. */
  moved?(peer: Peer, from: Peer): void;
}

interface SecurePeer {
  readonly credentials: DeviceCredentials;
  readonly end: (reason: string) => void;
  /** The lease whose kick this peer's session watches. */
  watched?: Lease;
}

const keyOf = (peer: Peer) => `${peer.address}:${peer.port}`;

/** How an adapter's DTLS sessions authenticate. */
export interface SecurePeersOptions {
  /** The adapter asking the registry (default coap: the identity is a deviceUsername). */
  readonly protocol?: ProtocolName;
  /** The identity as the registry knows it (LwM2M: the endpoint name without `urn:imei:`); default as sent. */
  readonly normalise?: (identity: string) => string;
  /**
   * Opens the device's session when the handshake completes (default true: CoAP). LwM2M opens it on Register, and
   * watches that lease.
   */
  readonly openOnHandshake?: boolean;
}

/**
 * The devices of established DTLS sessions, by the peer's address: the handshake proved the key, so a request on the
 * session is its device's with no credentials in the request. A kick of the device's lease (blocked, token changed)
 * ends the DTLS session, and the next handshake's lookup is refused or its old key no longer verifies.
 */
export class SecurePeers {
  private readonly peers = new Map<string, SecurePeer>();

  constructor(
    private readonly leases: DeviceLeases,
    private readonly registry: RegistryClient,
    private readonly log: Logger,
    private readonly options: SecurePeersOptions = {},
  ) {}

  private identityText(identity: Buffer): string {
    const text = identity.toString("utf8");
    return this.options.normalise ? this.options.normalise(text) : text;
  }

  /**
   * Asks the registry for the identity's device and its token as keys. The admission it answers is left unopened
   * (the registry forgets it): the device's session opens once the handshake proves the key.
   */
  async lookupPsk(identity: Buffer): Promise<Buffer[] | undefined> {
    const username = this.identityText(identity);
    const protocol = this.options.protocol ?? "coap";
    const outcome = await this.registry.authenticate(protocol, { kind: "psk", identity: username }, "");
    if (!outcome.ok) {
      this.log.info({ identity: username, code: outcome.code }, "DTLS PSK identity refused");
      return undefined;
    }
    const keys = outcome.session.pskKeys;
    return keys && keys.length > 0 ? [...keys] : undefined;
  }

  /**
   * Remembers the session's identity; for CoAP opens the device's session right away, so it is online (and
   * kickable) from the handshake on.
   */
  established(peer: Peer, identity: Buffer, end: (reason: string) => void): void {
    const entry: SecurePeer = { credentials: { kind: "psk", identity: this.identityText(identity) }, end };
    this.peers.set(keyOf(peer), entry);
    if (this.options.openOnHandshake === false) return;
    void this.leases.acquire(entry.credentials, peer.address).then((lease) => {
      if (lease instanceof Lease) this.watch(peer, lease);
      else if (this.peers.get(keyOf(peer)) === entry) end(`refused: ${lease.message}`);
    });
  }

  /** The credentials a request on `peer`'s session carries: its handshake's identity; undefined without a session. */
  credentialsOf(peer: Peer): DeviceCredentials | undefined {
    return this.peers.get(keyOf(peer))?.credentials;
  }

  /** The PSK identity (deviceUsername, normalised endpoint name) of `peer`'s session. */
  identityOf(peer: Peer): string | undefined {
    const credentials = this.credentialsOf(peer);
    return credentials?.kind === "psk" ? credentials.identity : undefined;
  }

  /** Ends `peer`'s DTLS session when `lease` is kicked (each lease watched once per session). */
  watch(peer: Peer, lease: Lease): void {
    const entry = this.peers.get(keyOf(peer));
    if (!entry || entry.watched === lease) return;
    entry.watched = lease;
    lease.onClose((reason) => {
      if (reason.startsWith("kicked") && this.peers.get(keyOf(peer)) === entry) entry.end(reason);
    });
  }

  closed(peer: Peer): void {
    this.peers.delete(keyOf(peer));
  }

  /** The session moved to `peer`'s address with its Connection ID: its device goes with it, no new handshake. */
  moved(peer: Peer, from: Peer): void {
    const entry = this.peers.get(keyOf(from));
    if (!entry) return;
    this.peers.delete(keyOf(from));
    this.peers.set(keyOf(peer), entry);
  }

  /** Established sessions now. */
  get size(): number {
    return this.peers.size;
  }
}
