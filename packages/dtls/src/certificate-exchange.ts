import { createECDH, createPrivateKey, createSign, createVerify, type KeyObject, X509Certificate } from "node:crypto";
import { type HandshakeMessage, HandshakeType } from "./handshake.js";
import {
  decodeCertificate,
  decodeCertificateVerify,
  decodeEcdhClientKeyExchange,
  ECDSA_SHA256,
  encodeCertificate,
  encodeCertificateRequest,
  encodeEcdheServerKeyExchange,
  encodeEcdhParams,
  RSA_SHA256,
} from "./ecdhe-messages.js";
import { AlertDescription } from "./messages.js";
import { DtlsError } from "./result.js";

/**
 * The server's certificate chain (DER, its own first) and its private key, P-256 or RSA; `keyExchange` says which
 * suites it can sign for.
 */
export interface ServerCertificate {
  chain: Buffer[];
  key: KeyObject;
  keyExchange: "ecdhe_ecdsa" | "ecdhe_rsa";
}

/** Who a client certificate belongs to, as the caller's check decides; `identity` names the session. */
export interface ClientIdentity {
  identity: Buffer;
  attributes?: Record<string, string>;
}

/**
 * Decides whether a client's chain (DER, its own certificate first) is one of ours: trust anchor, validity, name.
 * This package has already checked that the client holds the first certificate's private key. Undefined: refused.
 */
export type CheckClientCertificate = (chain: Buffer[]) => Promise<ClientIdentity | undefined>;

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * Reads a PEM chain and PEM key: an ECDSA P-256 key (the one curve the ECDHE_ECDSA suites sign with) or an RSA key of
 * at least 2048 bits (ECDHE_RSA), which must be the first certificate's.
 */
export function loadServerCertificate(chainPem: string, keyPem: string): ServerCertificate {
  const chain = (chainPem.match(PEM_CERTIFICATE) ?? []).map((pem) => new X509Certificate(pem).raw);
  const key = createPrivateKey(keyPem);
  if (chain.length === 0) throw new DtlsError("no certificate in the PEM chain", AlertDescription.internalError);
  const rsa = key.asymmetricKeyType === "rsa" && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048;
  if (!(isP256(key) || rsa) || !new X509Certificate(chain[0]!).checkPrivateKey(key)) {
    throw new DtlsError(
      "the server key is not the P-256 or RSA (≥ 2048 bits) key of its certificate",
      AlertDescription.internalError,
    );
  }
  return { chain, key, keyExchange: rsa ? "ecdhe_rsa" : "ecdhe_ecdsa" };
}

function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1";
}

/** What one client message gave: the ECDH premaster secret, or the checked identity once CertificateVerify holds. */
export type ExchangeStep = { premaster?: Buffer; client?: ClientIdentity };

/**
 * The certificate part of an ECDHE_ECDSA or ECDHE_RSA handshake with mutual authentication (RFC 8422, RFC 5246
 * §7.4): the server's Certificate, signed ServerKeyExchange and CertificateRequest, then the client's Certificate,
 * ClientKeyExchange and CertificateVerify, in that order. The ephemeral key lives only as long as this object.
 */
export class CertificateExchange {
  private readonly ecdh = createECDH("prime256v1");
  private expected: number = HandshakeType.certificate;
  private chain: Buffer[] = [];
  private clientKey: KeyObject | undefined;

  constructor(
    private readonly server: ServerCertificate,
    private readonly check: CheckClientCertificate,
  ) {
    this.ecdh.generateKeys();
  }

  /** Certificate, ServerKeyExchange (params signed with the randoms, RFC 8422 §5.4), CertificateRequest. */
  serverMessages(clientRandom: Buffer, serverRandom: Buffer): { msgType: number; body: Buffer }[] {
    const point = this.ecdh.getPublicKey();
    const signed = Buffer.concat([clientRandom, serverRandom, encodeEcdhParams(point)]);
    // An RSA key signs with RSASSA-PKCS1-v1_5 (node's default padding), rsa_pkcs1_sha256.
    const signature = createSign("sha256").update(signed).sign(this.server.key);
    const algorithm = this.server.keyExchange === "ecdhe_rsa" ? RSA_SHA256 : ECDSA_SHA256;
    return [
      { msgType: HandshakeType.certificate, body: encodeCertificate(this.server.chain) },
      { msgType: HandshakeType.serverKeyExchange, body: encodeEcdheServerKeyExchange(point, { algorithm, signature }) },
      { msgType: HandshakeType.certificateRequest, body: encodeCertificateRequest() },
    ];
  }

  /** Takes the client's next message; `transcript` holds the handshake before it (what CertificateVerify signs). */
  async take(message: HandshakeMessage, transcript: Buffer[]): Promise<ExchangeStep> {
    if (message.msgType !== this.expected) {
      throw new DtlsError(`unexpected handshake message ${message.msgType}`, AlertDescription.unexpectedMessage);
    }
    switch (message.msgType) {
      case HandshakeType.certificate:
        this.takeCertificate(message.body);
        this.expected = HandshakeType.clientKeyExchange;
        return {};
      case HandshakeType.clientKeyExchange:
        this.expected = HandshakeType.certificateVerify;
        return { premaster: this.agree(message.body) };
      default:
        this.expected = -1;
        return { client: await this.verify(message.body, transcript) };
    }
  }

  private takeCertificate(body: Buffer): void {
    const chain = decodeCertificate(body);
    if (!chain.ok) throw new DtlsError(chain.reason, AlertDescription.decodeError);
    // RFC 5246 §7.4.6: a client without a certificate sends an empty list; this server requires one.
    if (chain.value.length === 0) throw new DtlsError("client sent no certificate", AlertDescription.handshakeFailure);
    let key: KeyObject;
    try {
      key = new X509Certificate(chain.value[0]!).publicKey;
    } catch {
      throw new DtlsError("client certificate does not parse", AlertDescription.badCertificate);
    }
    if (!isP256(key)) throw new DtlsError("client key is not P-256", AlertDescription.unsupportedCertificate);
    this.chain = chain.value;
    this.clientKey = key;
  }

  /** The ECDH shared secret, the premaster secret of RFC 8422 §5.10; a point off the curve is refused. */
  private agree(body: Buffer): Buffer {
    const point = decodeEcdhClientKeyExchange(body);
    if (!point.ok) throw new DtlsError(point.reason, AlertDescription.decodeError);
    try {
      return this.ecdh.computeSecret(point.value);
    } catch {
      throw new DtlsError("client point not on P-256", AlertDescription.illegalParameter);
    }
  }

  private async verify(body: Buffer, transcript: Buffer[]): Promise<ClientIdentity> {
    const signed = decodeCertificateVerify(body);
    if (!signed.ok) throw new DtlsError(signed.reason, AlertDescription.decodeError);
    if (signed.value.algorithm !== ECDSA_SHA256) {
      throw new DtlsError("CertificateVerify not ecdsa_secp256r1_sha256", AlertDescription.illegalParameter);
    }
    const verifier = createVerify("sha256");
    for (const m of transcript) verifier.update(m);
    let good: boolean;
    try {
      good = verifier.verify(this.clientKey!, signed.value.signature);
    } catch {
      good = false; // a signature that is not DER
    }
    if (!good) throw new DtlsError("CertificateVerify does not verify", AlertDescription.decryptError);
    const client = await this.check(this.chain);
    if (!client) throw new DtlsError("client certificate refused", AlertDescription.badCertificate);
    return client;
  }
}
