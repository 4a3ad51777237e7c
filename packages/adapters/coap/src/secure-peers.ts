import { createHash, randomBytes, X509Certificate as X509, type X509Certificate } from "node:crypto";
import type { Logger } from "pino";
import {
  Lease,
  type DeviceCredentials,
  type DeviceLeases,
  type ProtocolName,
  type RegistryClient,
} from "@iot/adapter-core";
import type { Peer } from "./message-layer.js";
import { verifyClientChain } from "./dtls-certificates.js";

/** Who a client certificate belongs to, as the DTLS layer takes it (its ClientIdentity). */
export interface CertificateIdentity {
  identity: Buffer;
  attributes?: Record<string, string>;
}

/** TLS alert decrypt_error (RFC 5246 §7.2.2): what a handshake whose client Finished no key verifies ends with. */
const DECRYPT_ERROR = 51;

/**
 * What the DTLS listener feeds the adapter: the PSK lookup of a handshake, the sessions that completed or ended, and
 * the decrypted datagrams of a session (`send` encrypts the answer on the same session).
 */
export interface SecureTarget {
  /** Candidate keys of a PSK identity (a deviceUsername, an LwM2M endpoint name); undefined when refused. */
  lookupPsk(identity: Buffer, from: Peer): Promise<Buffer[] | undefined>;
  /** Whose a client certificate chain (DER, own first) is; undefined when refused. Absent: no certificate suites. */
  checkCertificate?(chain: Buffer[], from: Peer): Promise<CertificateIdentity | undefined>;
  /**
   * A handshake completed: `peer`'s requests are now the device's; `end` closes the DTLS session (a kick). `client`:
   * the certificate's checked identity, for a certificate handshake.
   */
  established(peer: Peer, identity: Buffer, end: (reason: string) => void, client?: CertificateIdentity): void;
  /** A handshake that did not complete ended with `alert` (when it sent one). */
  failed?(peer: Peer, reason: string, alert?: number): void;
  /**
   * A decrypted datagram of an established session. `peer` is one object for the session's whole life (the same one
   * `established` got), whose address changes when the session moves.
   */
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
  /** The service CA client certificates must chain to: without it, certificate handshakes are refused. */
  readonly ca?: X509Certificate;
}

/**
 * The devices of established DTLS sessions, by the peer's address: the handshake proved the key, so a request on the
 * session is its device's with no credentials in the request. A kick of the device's lease (blocked, token changed)
 * ends the DTLS session, and the next handshake's lookup is refused or its old key no longer verifies.
 */
export class SecurePeers {
  private readonly peers = new Map<string, SecurePeer>();
  /**
   * Handshakes past their PSK lookup, by address: the identity asked, and whether the registry refused it (and so
   * logged it already) — a handshake it admitted that fails on the key is reported from here.
   */
  private readonly pending = new Map<string, { identity: string; refused: boolean }>();

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
  async lookupPsk(identity: Buffer, from: Peer): Promise<Buffer[] | undefined> {
    const username = this.identityText(identity);
    const outcome = await this.registry.authenticate(this.protocol, { kind: "psk", identity: username }, from.address);
    this.pending.set(keyOf(from), { identity: username, refused: !outcome.ok });
    if (!outcome.ok && outcome.code === "UNAVAILABLE") {
      // Not the device's fault: the handshake ends with internal_error (the dtls package's answer to a lookup that
      // rejects), not unknown_psk_identity, which would tell a device with good credentials it has none.
      this.log.warn({ identity: username }, "DTLS PSK lookup failed: registry unavailable");
      throw new Error("registry unavailable");
    }
    if (!outcome.ok) {
      this.log.info({ identity: username, code: outcome.code }, "DTLS PSK identity refused");
      // RFC 4279 §2: unknown_psk_identity for an identity the service does not know; a known one refused (blocked,
      // another protocol's, a certificate device) goes on as if the key were wrong and ends with decrypt_error, so a
      // client without the key learns nothing of the device. A key of random bytes verifies no Finished.
      return outcome.code === "BAD_CREDENTIALS" ? undefined : [randomBytes(16)];
    }
    const keys = outcome.session.pskKeys;
    return keys && keys.length > 0 ? [...keys] : undefined;
  }

  /**
   * Checks a client certificate: it must chain to the service CA (checked here, as the MQTT mutual-TLS listener's
   * TLS stack does), then the registry checks its CN and fingerprint (enabled, bound to one authType 2 device). A
   * chain that is not ours is reported to the registry for its connect log.
   */
  async checkCertificate(chain: Buffer[], from: Peer): Promise<CertificateIdentity | undefined> {
    if (!this.options.ca) return undefined;
    const verified = verifyClientChain(chain, this.options.ca);
    if (typeof verified === "string") {
      this.log.info({ peer: from.address, reason: verified }, "DTLS client certificate refused");
      const who = certificateNames(chain[0]);
      this.registry.reportAuthFailure(
        this.protocol,
        { kind: "certificate", clientId: "", ...who },
        from.address,
        verified,
      );
      return undefined;
    }
    const credentials = { kind: "certificate" as const, clientId: "", ...verified };
    const outcome = await this.registry.authenticate(this.protocol, credentials, from.address);
    if (!outcome.ok) {
      this.log.info({ commonName: verified.commonName, code: outcome.code }, "DTLS client certificate refused");
      return undefined;
    }
    return { identity: Buffer.from(verified.commonName), attributes: { ...verified } };
  }

  /** A handshake that failed on the key (decrypt_error) after its identity was admitted: the registry logs it. */
  failed(peer: Peer, reason: string, alert?: number): void {
    const asked = this.pending.get(keyOf(peer));
    this.pending.delete(keyOf(peer));
    if (!asked || asked.refused || alert !== DECRYPT_ERROR) return;
    this.log.info({ identity: asked.identity, peer: peer.address, reason }, "DTLS handshake failed: wrong key");
    this.registry.reportAuthFailure(
      this.protocol,
      { kind: "psk", identity: asked.identity },
      peer.address,
      "wrong pre-shared key: the handshake's Finished does not verify",
    );
  }

  private get protocol(): ProtocolName {
    return this.options.protocol ?? "coap";
  }

  /**
   * Remembers the session's identity; for CoAP opens the device's session right away, so it is online (and
   * kickable) from the handshake on.
   */
  established(peer: Peer, identity: Buffer, end: (reason: string) => void, client?: CertificateIdentity): void {
    this.pending.delete(keyOf(peer));
    const cert = client?.attributes;
    const credentials: DeviceCredentials = cert
      ? { kind: "certificate", clientId: "", commonName: cert.commonName ?? "", fingerprint: cert.fingerprint ?? "" }
      : { kind: "psk", identity: this.identityText(identity) };
    const entry: SecurePeer = { credentials, end };
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
    this.pending.delete(keyOf(peer));
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

/** The CN and fingerprint of a certificate that is not ours, for the registry's connect log (empty when unparsable). */
function certificateNames(der: Buffer | undefined): { commonName: string; fingerprint: string } {
  try {
    const cert = new X509(der!);
    const cn = cert.subject.split("\n").find((line) => line.startsWith("CN="));
    return { commonName: cn ? cn.slice(3) : "", fingerprint: createHash("sha256").update(cert.raw).digest("hex") };
  } catch {
    return { commonName: "", fingerprint: "" };
  }
}
