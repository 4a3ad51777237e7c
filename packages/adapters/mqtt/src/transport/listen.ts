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
 * Pending connections the kernel may hold for a listener before the adapter accepts them (capped by the system's
 * `net.core.somaxconn`). Node's default, 511, fills in a quarter second of a 2,000/s reconnect storm whenever the
 * adapter is busy; a full queue drops SYNs, and each dropped device retries only after 1 s, then 3 s, 7 s…
 */
const LISTEN_BACKLOG = 4096;

/**
 * Binds `server` to host:port with a deep accept queue (LISTEN_BACKLOG). A taken or forbidden port fails as a one-line
 * StartupError naming `what` and the variable `envName` that chose it.
 */
export function listen(
  server: Server,
  options: { port: number; host: string; what: string; envName: string },
): Promise<Listener> {
  return new Promise((resolve, reject) => {
    server.once("error", (err) => reject(listenError(err, options.what, options.port, options.envName)));
    server.listen({ port: options.port, host: options.host, backlog: LISTEN_BACKLOG }, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        port,
        host: options.host,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
