import { createSocket } from "node:dgram";
import { DtlsServer, type DtlsPeer } from "@iot/dtls";
import { listenError } from "@iot/config";
import type { SecureTarget } from "../secure-peers.js";
import type { Peer } from "../message-layer.js";
import type { UdpListener } from "./udp.js";
import { literalLookup } from "./udp.js";

/** The bound DTLS listener: the UDP socket and the sessions on it. */
export interface DtlsListener extends UdpListener {
  /** DTLS sessions now, established or handshaking. */
  readonly sessions: number;
  /**
   * Encrypts a datagram on the established session of `peer` (the message layer's `send`, for requests the server
   * makes as a client: LwM2M commands); dropped when the peer has none, as a datagram lost on the way would be.
   */
  send(datagram: Buffer, peer: Peer): void;
}

/**
 * Binds a UDP socket for CoAP over DTLS with pre-shared keys (RFC 7252 §9.1.3.1) and, given a server certificate,
 * with certificates (§9.1.3.3, mutual): the handshake asks the target for the identity's candidate keys, or whose the
 * client's certificate is; a handshake that fails is told to the target (a wrong key is logged); a completed one
 * tells the target the peer's identity, then every decrypted datagram goes to the target and its answers go back
 * encrypted on the same session. A session that ends (close_notify, the target's `end` on a kick, a failed record)
 * is told to the target; so is one that sent nothing for `idleMs` (default one hour), closed then: the DTLS layer
 * keeps a session until told, and a device that vanished would hold its memory for ever. A taken port fails as a
 * one-line StartupError naming `setting` (default IOT_COAPS_PORT) and
 * `name` (default coaps).
 */
export function listenDtls(
  target: SecureTarget,
  options: {
    port: number;
    host: string;
    onError: (err: Error) => void;
    mtu?: number;
    maxHandshakes?: number;
    idleMs?: number;
    setting?: string;
    name?: string;
    /** Pre-shared key suites (default true). */
    psk?: boolean;
    /** The server's chain and P-256 key (PEM): with the target's checkCertificate, the ECDHE_ECDSA suites. */
    certificate?: { chain: string; key: string };
  },
): Promise<DtlsListener> {
  const socket = createSocket({ type: options.host.includes(":") ? "udp6" : "udp4", lookup: literalLookup });
  /** Established sessions and when each last sent a record the adapter got. */
  const established = new Map<DtlsPeer, number>();
  /** The same sessions by `address:port`, for `send`. */
  const byAddress = new Map<string, DtlsPeer>();
  const keyOf = (peer: Peer) => `${peer.address}:${peer.port}`;
  const idleMs = options.idleMs ?? 3_600_000;
  const server = new DtlsServer(socket, {
    ...(options.psk !== false && { lookupPsk: (identity, from) => target.lookupPsk(identity, from) }),
    ...(options.certificate &&
      target.checkCertificate && {
        certificate: options.certificate,
        checkClientCertificate: (chain, from) => target.checkCertificate!(chain, from),
      }),
    ...(options.mtu !== undefined && { mtu: options.mtu }),
    ...(options.maxHandshakes !== undefined && { maxHandshakes: options.maxHandshakes }),
    onEstablished: (peer, info) => {
      established.set(peer, Date.now());
      byAddress.set(keyOf(peer), peer);
      target.established(peer, info.identity, (reason) => peer.session.close(reason), info.client);
    },
    onData: (peer, data) => {
      established.set(peer, Date.now());
      target.handle(data, peer, (answer) => {
        // An answer that comes after the session ended (a kick while a publish was stored) has nowhere to go.
        if (!peer.session.closed) peer.session.sendData(answer);
      });
    },
    onMoved: (peer, from) => {
      // RFC 9146: the device's NAT binding changed and its Connection ID kept the session.
      if (byAddress.get(keyOf(from)) === peer) byAddress.delete(keyOf(from));
      byAddress.set(keyOf(peer), peer);
      target.moved?.(peer, from);
    },
    onClose: (peer, reason, alert) => {
      if (byAddress.get(keyOf(peer)) === peer) byAddress.delete(keyOf(peer));
      if (established.delete(peer)) target.closed(peer);
      else target.failed?.(peer, reason, alert);
    },
  });
  const sweep = setInterval(
    () => {
      const before = Date.now() - idleMs;
      for (const [peer, seen] of established) if (seen < before) peer.session.close("idle");
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();
  return new Promise((resolve, reject) => {
    socket.once("error", (err) => {
      clearInterval(sweep);
      reject(listenError(err, options.name ?? "coaps", options.port, options.setting ?? "IOT_COAPS_PORT"));
    });
    socket.bind(options.port, options.host, () => {
      socket.removeAllListeners("error");
      socket.on("error", options.onError);
      resolve({
        port: socket.address().port,
        get sessions() {
          return server.size;
        },
        send(datagram, peer) {
          const session = byAddress.get(keyOf(peer))?.session;
          if (session && !session.closed) session.sendData(datagram);
        },
        close: () => {
          clearInterval(sweep);
          server.close();
          return new Promise<void>((done) => socket.close(() => done()));
        },
      });
    });
  });
}
