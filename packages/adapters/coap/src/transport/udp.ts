import { createSocket } from "node:dgram";
import { listenError } from "@iot/config";
import type { CoapAdapter } from "../coap-adapter.js";

/** The bound UDP socket of the adapter. */
export interface UdpListener {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Binds a UDP socket and feeds every datagram to the adapter, answering to
 * its sender. A socket error is logged by the caller's `onError`, never
 * thrown: one bad peer must not stop the process. A taken port fails as a
 * one-line StartupError naming IOT_COAP_PORT.
 */
export function listenUdp(
  adapter: CoapAdapter,
  options: { port: number; host: string; onError: (err: Error) => void },
): Promise<UdpListener> {
  const socket = createSocket({ type: options.host.includes(":") ? "udp6" : "udp4" });
  return new Promise((resolve, reject) => {
    socket.once("error", (err) => reject(listenError(err, "coap", options.port, "IOT_COAP_PORT")));
    socket.bind(options.port, options.host, () => {
      socket.removeAllListeners("error");
      socket.on("error", options.onError);
      socket.on("message", (datagram, peer) => {
        adapter.handle(datagram, peer, (answer) =>
          socket.send(answer, peer.port, peer.address, (err) => err && options.onError(err)),
        );
      });
      resolve({
        port: socket.address().port,
        close: () => new Promise<void>((done) => socket.close(() => done())),
      });
    });
  });
}
