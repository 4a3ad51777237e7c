import { createServer, type IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, createWebSocketStream } from "ws";
import { listen, type Listener } from "./listen.js";

/** The URL path MQTT over WebSocket is served on (as Mosquitto, EMQX and HiveMQ do). */
export const WS_PATH = "/mqtt";

/** WebSocket subprotocols of MQTT: "mqtt" (MQTT 3.1.1 §6) and the older "mqttv3.1", preferred in that order. */
const SUBPROTOCOLS = ["mqtt", "mqttv3.1"];

/** Picks the subprotocol; clients offering none get none (and still speak MQTT). */
function mqttSubprotocol(offered: Set<string>): string | false {
  return SUBPROTOCOLS.find((p) => offered.has(p)) ?? false;
}

/** A client that offers subprotocols but no MQTT one speaks something else: refuse the upgrade (400). */
function offersMqtt(req: IncomingMessage): boolean {
  const header = req.headers["sec-websocket-protocol"];
  if (header === undefined) return true;
  return header.split(",").some((p) => SUBPROTOCOLS.includes(p.trim()));
}

/**
 * MQTT over WebSocket at ws://host:port/mqtt: each binary message stream
 * becomes a duplex for the adapter. The stream carries the peer's address as
 * `remoteAddress`, like a socket, so sessions and connect logs show the
 * device's IP. A frame larger than the adapter's largest MQTT packet is
 * refused from its header before it is buffered (close code 1009, logged by
 * the adapter naming the device); so are other paths and clients offering
 * only non-MQTT subprotocols (400); plain HTTP requests answer 426.
 */
export function listenWs(
  adapter: {
    handle(stream: Duplex): void;
    readonly maxPacketBytes: number;
    refuseOversized(stream: Duplex, what: string): void;
  },
  options: { port: number; host: string; envName: string },
): Promise<Listener> {
  const http = createServer((_req, res) => {
    res
      .writeHead(426, { "content-type": "text/plain", upgrade: "websocket" })
      .end(`MQTT over WebSocket: connect to ws://<host>:<port>${WS_PATH}\n`);
  });
  const wss = new WebSocketServer({
    server: http,
    path: WS_PATH,
    maxPayload: adapter.maxPacketBytes,
    handleProtocols: mqttSubprotocol,
    verifyClient: (info, done) => (offersMqtt(info.req) ? done(true) : done(false, 400, "offer the mqtt subprotocol")),
  });
  wss.on("connection", (ws, req: IncomingMessage) => {
    const stream = createWebSocketStream(ws);
    // A peer that vanishes mid-write errors the stream; the adapter sees it close.
    stream.on("error", () => undefined);
    Object.assign(stream, { remoteAddress: req.socket.remoteAddress });
    ws.on("error", (err: Error & { code?: string }) => {
      if (err.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") adapter.refuseOversized(stream, "WebSocket frame");
    });
    adapter.handle(stream);
  });
  wss.on("error", () => undefined);
  return listen(http, {
    port: options.port,
    host: options.host,
    what: "mqtt over websocket",
    envName: options.envName,
  }).then((l) => ({
    ...l,
    close: async () => {
      const closed = l.close();
      wss.close();
      await closed;
    },
  }));
}
