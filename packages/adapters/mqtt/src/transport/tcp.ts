import { createServer, type AddressInfo, type Server } from "node:net";
import type { Duplex } from "node:stream";
import { listenError } from "@iot/config";

/** A listening MQTT TCP endpoint. */
export interface TcpListener {
  /** The port actually bound (the OS's choice when 0 was asked). */
  readonly port: number;
  readonly host: string;
  /** Stops accepting connections; resolves once every accepted one has ended. */
  close(): Promise<void>;
}

/**
 * Plain MQTT over TCP (1883): every accepted socket goes to the adapter.
 * A taken port fails as a one-line StartupError naming `envName`.
 */
export function listenTcp(
  adapter: { handle(stream: Duplex): void },
  options: { port: number; host: string; envName?: string },
): Promise<TcpListener> {
  const server: Server = createServer((socket) => {
    socket.setNoDelay(true);
    adapter.handle(socket);
  });
  return new Promise((resolve, reject) => {
    server.once("error", (err) => reject(listenError(err, "mqtt", options.port, options.envName ?? "IOT_MQTT_PORT")));
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
