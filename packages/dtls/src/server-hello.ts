import { decodeWith, vector } from "./bytes.js";
import { encodePointFormats } from "./ecdhe-messages.js";
import { ok, refuse } from "./result.js";
import {
  type ClientHello,
  EMPTY_RENEGOTIATION_INFO_SCSV,
  type Extension,
  ExtensionType,
  findExtension,
} from "./messages.js";
import type { CipherSuite } from "./protection.js";
import { DTLS12 } from "./record.js";
import type { CachedSession, SessionCache } from "./session-cache.js";

/** Why a ClientHello cannot be answered with a ServerHello (handshake_failure), or undefined when it can. */
export function helloRefusal(hello: ClientHello, suite: CipherSuite | undefined): string | undefined {
  const renegotiation = findExtension(hello.extensions, ExtensionType.renegotiationInfo);
  if (!suite) return "no cipher suite in common";
  if (!hello.compressionMethods.includes(0) || hello.clientVersion > DTLS12) return "no DTLS 1.2 without compression";
  if (renegotiation && !renegotiation.data.equals(Buffer.from([0]))) return "renegotiation_info not empty";
  return undefined;
}

/** Whether the client offered the extended master secret (RFC 7627). */
export function offersExtendedMasterSecret(hello: ClientHello): boolean {
  return findExtension(hello.extensions, ExtensionType.extendedMasterSecret) !== undefined;
}

/**
 * The cached session a ClientHello may resume (RFC 5246 §7.4.1.2): its id is kept, the client still offers its suite
 * and the server still serves that kind, and the extended master secret is used both times or neither (RFC 7627
 * §5.3; otherwise the handshake is a full one).
 */
export function resumable(
  hello: ClientHello,
  cache: SessionCache | undefined,
  serves: (suiteId: number) => boolean,
): CachedSession | undefined {
  const cached = cache?.get(hello.sessionId);
  if (!cached || !hello.cipherSuites.includes(cached.suiteId) || !serves(cached.suiteId)) return undefined;
  return cached.extended === offersExtendedMasterSecret(hello) ? cached : undefined;
}

/**
 * RFC 9146 §3: a client offering connection_id gets `ours` in the ServerHello's; `peer` is the client's own, which
 * the server's records carry (none when it is empty). A malformed extension is ignored.
 */
export function negotiateConnectionId(
  hello: ClientHello,
  ours: Buffer,
): { extension: Extension; peer: Buffer } | undefined {
  const offered = findExtension(hello.extensions, ExtensionType.connectionId);
  if (!offered) return undefined;
  const peer = decodeWith("connection_id", offered.data, (r) => {
    const cid = r.vector(1, 0, 255);
    return r.remaining === 0 ? ok(cid) : refuse("connection_id: trailing bytes");
  });
  if (!peer.ok) return undefined;
  return { extension: { type: ExtensionType.connectionId, data: vector(1, ours) }, peer: peer.value };
}

/**
 * The ServerHello's extensions: the connection ID's answer, EMS when agreed, secure renegotiation's empty answer,
 * point formats for ECDHE.
 */
export function serverHelloExtensions(
  hello: ClientHello,
  extended: boolean,
  ecdhe: boolean,
  connectionId?: Extension,
): Extension[] {
  const extensions: Extension[] = connectionId ? [connectionId] : [];
  if (extended) extensions.push({ type: ExtensionType.extendedMasterSecret, data: Buffer.alloc(0) });
  // RFC 5746 §3.6: answer a client that signals secure renegotiation; renegotiation itself is refused later.
  const renegotiation = findExtension(hello.extensions, ExtensionType.renegotiationInfo);
  if (renegotiation || hello.cipherSuites.includes(EMPTY_RENEGOTIATION_INFO_SCSV)) {
    extensions.push({ type: ExtensionType.renegotiationInfo, data: Buffer.from([0]) });
  }
  if (ecdhe && findExtension(hello.extensions, ExtensionType.ecPointFormats)) {
    extensions.push({ type: ExtensionType.ecPointFormats, data: encodePointFormats([0]) }); // RFC 8422 §5.2
  }
  return extensions;
}
