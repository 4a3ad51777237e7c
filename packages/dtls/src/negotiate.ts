import { decodePointFormats, decodeU16List, ECDSA_SHA256, RSA_SHA256, SECP256R1 } from "./ecdhe-messages.js";
import { type ClientHello, ExtensionType, findExtension } from "./messages.js";
import { CIPHER_SUITES, type CipherSuite } from "./protection.js";

/** What the server can do: PSK when it has a lookup; the certificate kind when it has a certificate and a check. */
export interface Served {
  psk: boolean;
  certificate: "ecdhe_ecdsa" | "ecdhe_rsa" | undefined;
}

/**
 * The suite for a ClientHello, in the server's order of preference ({@link CIPHER_SUITES}), not the client's: PSK
 * suites only when the server has a PSK lookup, ECDHE ones only for the server certificate's kind of key, and only
 * when the client can use P-256, uncompressed points and the server's signature algorithm (ecdsa_secp256r1_sha256 or
 * rsa_pkcs1_sha256; an absent extension allows them, RFC 8422 §4 and RFC 5246 §7.4.1.4.1).
 */
export function chooseSuite(hello: ClientHello, have: Served): CipherSuite | undefined {
  const ecdhe = have.certificate !== undefined && clientTakesP256(hello, have.certificate);
  return CIPHER_SUITES.find(
    (s) =>
      hello.cipherSuites.includes(s.id) &&
      (s.keyExchange === "psk" ? have.psk : ecdhe && s.keyExchange === have.certificate),
  );
}

/** The suite with this number if the server still serves its kind of key exchange (a cached session's suite). */
export function servedSuite(id: number, have: Served): CipherSuite | undefined {
  return CIPHER_SUITES.find(
    (s) => s.id === id && (s.keyExchange === "psk" ? have.psk : have.certificate === s.keyExchange),
  );
}

function clientTakesP256(hello: ClientHello, kind: "ecdhe_ecdsa" | "ecdhe_rsa"): boolean {
  const allows = (type: number, decode: (d: Buffer) => { ok: boolean; value?: number[] }, want: number[]) => {
    const ext = findExtension(hello.extensions, type);
    if (!ext) return true;
    const list = decode(ext.data);
    return list.ok && want.every((w) => (list.value ?? []).includes(w));
  };
  const signatures = kind === "ecdhe_rsa" ? [RSA_SHA256] : [ECDSA_SHA256];
  return (
    allows(ExtensionType.supportedGroups, decodeU16List, [SECP256R1]) &&
    allows(ExtensionType.ecPointFormats, decodePointFormats, [0]) &&
    allows(ExtensionType.signatureAlgorithms, decodeU16List, signatures)
  );
}
