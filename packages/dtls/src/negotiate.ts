import { decodePointFormats, decodeU16List, ECDSA_SHA256, SECP256R1 } from "./ecdhe-messages.js";
import { type ClientHello, ExtensionType, findExtension } from "./messages.js";
import { CIPHER_SUITES, type CipherSuite } from "./protection.js";

/**
 * The suite for a ClientHello, in the server's order of preference ({@link CIPHER_SUITES}), not the client's: PSK
 * suites only when the server has a PSK lookup, ECDHE_ECDSA ones only when it has a certificate and a client check
 * and the client can use P-256, uncompressed points and ecdsa_secp256r1_sha256 (an absent extension allows them,
 * RFC 8422 §4 and RFC 5246 §7.4.1.4.1).
 */
export function chooseSuite(hello: ClientHello, have: { psk: boolean; certificate: boolean }): CipherSuite | undefined {
  const ecdhe = have.certificate && clientTakesP256(hello);
  return CIPHER_SUITES.find((s) => hello.cipherSuites.includes(s.id) && (s.keyExchange === "psk" ? have.psk : ecdhe));
}

/** The suite with this number if the server still serves its kind of key exchange (a cached session's suite). */
export function servedSuite(id: number, have: { psk: boolean; certificate: boolean }): CipherSuite | undefined {
  return CIPHER_SUITES.find((s) => s.id === id && (s.keyExchange === "psk" ? have.psk : have.certificate));
}

function clientTakesP256(hello: ClientHello): boolean {
  const allows = (type: number, decode: (d: Buffer) => { ok: boolean; value?: number[] }, want: number) => {
    const ext = findExtension(hello.extensions, type);
    if (!ext) return true;
    const list = decode(ext.data);
    return list.ok && (list.value ?? []).includes(want);
  };
  return (
    allows(ExtensionType.supportedGroups, decodeU16List, SECP256R1) &&
    allows(ExtensionType.ecPointFormats, decodePointFormats, 0) &&
    allows(ExtensionType.signatureAlgorithms, decodeU16List, ECDSA_SHA256)
  );
}
