import { createServer } from "node:net";
import type { Duplex } from "node:stream";
import { listen, type Listener } from "./listen.js";

/** A listening MQTT TCP endpoint. */
export type TcpListener = Listener;

/**
 * Plain MQTT over TCP (1883): every accepted socket goes to the adapter.
 * A taken port fails as a one-line StartupError naming `envName`.
 */
export function listenTcp(
  adapter: { handle(stream: Duplex): void },
  options: { port: number; host: string; envName?: string },
): Promise<TcpListener> {
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    adapter.handle(socket);
  });
  return listen(server, {
    port: options.port,
    host: options.host,
    what: "mqtt",
    envName: options.envName ?? "IOT_MQTT_PORT",
  });
}
