import type { Duplex } from "node:stream";
import { createServer, type TLSSocket } from "node:tls";
import type { Logger } from "pino";
import { listen, type Listener } from "./listen.js";

/** PEM texts a TLS listener serves with; `caPem` is what device certificates must chain to. */
export interface TlsMaterial {
  readonly certPem: string;
  readonly keyPem: string;
  readonly caPem: string;
}

/** Time a device has to finish the TLS handshake, ms. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * MQTT over TLS. With `mutual` (8884) the handshake requires a client
 * certificate that chains to `material.caPem` (the service CA) and fails
 * otherwise, before any MQTT byte is read; the adapter then authenticates the
 * device by that certificate. Without it (8883) no client certificate is
 * asked for and devices log in with their token. Handshake failures are
 * logged (no device can be named yet) and never reach the adapter.
 */
export function listenTls(
  adapter: { handle(stream: Duplex): void },
  options: { port: number; host: string; material: TlsMaterial; mutual: boolean; envName: string; logger: Logger },
): Promise<Listener> {
  const what = options.mutual ? "mqtt over mutual TLS" : "mqtt over TLS";
  const server = createServer(
    {
      cert: options.material.certPem,
      key: options.material.keyPem,
      minVersion: "TLSv1.2",
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      ...(options.mutual ? { ca: options.material.caPem, requestCert: true, rejectUnauthorized: true } : {}),
    },
    (socket: TLSSocket) => {
      socket.setNoDelay(true);
      adapter.handle(socket);
    },
  );
  server.on("tlsClientError", (err: Error & { code?: string }, socket: TLSSocket) => {
    options.logger.info(
      { listener: what, ip: socket.remoteAddress, reason: err.code ?? err.message },
      "TLS handshake refused",
    );
  });
  return listen(server, { port: options.port, host: options.host, what, envName: options.envName });
}
