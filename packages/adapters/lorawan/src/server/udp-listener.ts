import { createSocket, type Socket } from "node:dgram";
import { listenError } from "@iot/config";
import type { NetworkServer } from "./network-server.js";

/** UDP receive buffer, bytes: gateways push in bursts (a busy cell, forwarders catching up after an outage). */
const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

/** A bound packet-forwarder socket. */
export interface LorawanUdp {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Binds the packet-forwarder UDP socket and feeds its datagrams to the server; the server's `send` should write
 * through {@link socketSender} of the same socket. Socket errors are logged by `onError`, never fatal.
 */
export async function listenLorawanUdp(
  socket: Socket,
  server: Pick<NetworkServer, "receive">,
  options: { port: number; host: string; onError: (err: Error) => void },
): Promise<LorawanUdp> {
  socket.on("message", (msg, rinfo) => server.receive(msg, { address: rinfo.address, port: rinfo.port }));
  socket.on("error", options.onError);
  await new Promise<void>((resolve, reject) => {
    socket.once("error", (err) => reject(listenError(err, "lorawan adapter", options.port, "IOT_LORA_UDP_PORT")));
    socket.bind(options.port, options.host, () => resolve());
  });
  try {
    socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
  } catch {
    // The kernel caps it (net.core.rmem_max); the default buffer still works.
  }
  return {
    port: socket.address().port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** A UDP socket for IPv4 gateways (the packet forwarder speaks IPv4). */
export const createLorawanSocket = (): Socket => createSocket({ type: "udp4", reuseAddr: false });

/** The server's `send` over `socket`; a send error is passed to `onError`. */
export function socketSender(socket: Socket, onError: (err: Error) => void) {
  return (datagram: Buffer, port: number, address: string) =>
    socket.send(datagram, port, address, (err) => {
      if (err) onError(err);
    });
}
