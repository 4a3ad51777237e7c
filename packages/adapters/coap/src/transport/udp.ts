import { createSocket } from "node:dgram";
import { lookup, type LookupOneOptions } from "node:dns";
import { isIP } from "node:net";
import { listenError } from "@iot/config";
import type { Peer } from "../message-layer.js";

/** The bound UDP socket of an adapter. */
export interface UdpListener {
  readonly port: number;
  /**
   * Writes a datagram to any peer through the same socket: the message layer's `send` option, for the requests it
   * makes as a client (a server's request reaches a device behind NAT only from the address the device talks to).
   */
  send(datagram: Buffer, peer: Peer): void;
  close(): Promise<void>;
}

/** What the socket feeds: an adapter or a message layer. */
export interface DatagramTarget {
  handle(datagram: Buffer, peer: Peer, send: (datagram: Buffer) => void): void;
}

/**
 * The socket's address lookup: every datagram goes to a peer's address as received, an IP address, which is answered
 * at once; only a name (a bind host such as "localhost") goes to dns.lookup. node:dgram looks up the address of every
 * send, and dns.lookup answers even an IP address on the next tick (2.4 % of the adapter's CPU per request).
 */
export function literalLookup(
  hostname: string,
  options: LookupOneOptions | number, // node:dgram passes the socket's family, 4 or 6
  callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void,
): void {
  const family = isIP(hostname);
  if (family !== 0) return callback(null, hostname, family);
  if (typeof options === "number") lookup(hostname, options, callback);
  else lookup(hostname, options, callback);
}

/**
 * Binds a UDP socket and feeds every datagram to the target, answering to its sender. A socket error is logged by
 * the caller's `onError`, never thrown: one bad peer must not stop the process. A taken port fails as a one-line
 * StartupError naming `setting` (default IOT_COAP_PORT) and `name` (default coap).
 */
export function listenUdp(
  target: DatagramTarget,
  options: {
    port: number;
    host: string;
    onError: (err: Error) => void;
    setting?: string;
    name?: string;
    /**
     * The socket's receive buffer, bytes (SO_RCVBUF; Linux caps it at net.core.rmem_max): room for a burst of
     * datagrams while the event loop is busy, such as a fleet registering at once. Default: the system's.
     */
    receiveBufferBytes?: number;
  },
): Promise<UdpListener> {
  const socket = createSocket({
    type: options.host.includes(":") ? "udp6" : "udp4",
    lookup: literalLookup,
    ...(options.receiveBufferBytes === undefined ? {} : { recvBufferSize: options.receiveBufferBytes }),
  });
  const sent = (err: Error | null) => {
    if (err) options.onError(err);
  };
  const send = (datagram: Buffer, peer: Peer) => socket.send(datagram, peer.port, peer.address, sent);
  return new Promise((resolve, reject) => {
    socket.once("error", (err) =>
      reject(listenError(err, options.name ?? "coap", options.port, options.setting ?? "IOT_COAP_PORT")),
    );
    socket.bind(options.port, options.host, () => {
      socket.removeAllListeners("error");
      socket.on("error", options.onError);
      socket.on("message", (datagram, peer) => {
        target.handle(datagram, peer, (answer) => send(answer, peer));
      });
      resolve({
        port: socket.address().port,
        send,
        close: () => new Promise<void>((done) => socket.close(() => done())),
      });
    });
  });
}
