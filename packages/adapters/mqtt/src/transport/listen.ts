import type { AddressInfo, Server } from "node:net";
import { listenError } from "@iot/config";

/** A listening device endpoint of the adapter (TCP, TLS or WebSocket). */
export interface Listener {
  /** The port actually bound (the OS's choice when 0 was asked). */
  readonly port: number;
  readonly host: string;
  /** Stops accepting connections; resolves once every accepted one has ended. */
  close(): Promise<void>;
}

/**
 * Binds `server` to host:port. A taken or forbidden port fails as a one-line
 * StartupError naming `what` and the variable `envName` that chose it.
 */
export function listen(
  server: Server,
  options: { port: number; host: string; what: string; envName: string },
): Promise<Listener> {
  return new Promise((resolve, reject) => {
    server.once("error", (err) => reject(listenError(err, options.what, options.port, options.envName)));
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        host: options.host,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
