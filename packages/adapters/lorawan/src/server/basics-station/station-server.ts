import { timingSafeEqual } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { Duplex } from "node:stream";
import { listenError } from "@iot/config";
import type { Logger } from "pino";
import { WebSocketServer, type WebSocket } from "ws";
import type { Region } from "../../codec/region.js";
import type { NetworkServer } from "../network-server.js";
import { MAX_STATION_MESSAGE_BYTES, parseEui, parseJsonObject, stringifyStation } from "./station-json.js";
import { StationSession, type StationContext } from "./station-session.js";

/** Options of {@link listenBasicsStation}. */
export interface BasicsStationOptions {
  readonly server: Pick<NetworkServer, "hear" | "gateways" | "stats">;
  readonly logger: Logger;
  /** The region every station of this adapter is configured for (router_config). */
  readonly region: Region;
  /** The network's NetID, 6 hex digits (router_config's NetID filter). */
  readonly netId: string;
  readonly port: number;
  readonly host: string;
  /** PEM certificate and key: wss:// instead of ws:// (the station's tc.trust must hold the CA). */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer };
  /** When set, every station must send it as its `Authorization` header (the station's tc.key). */
  readonly token?: string;
  /** A WebSocket ping this often keeps an idle station's gateway online, s. */
  readonly pingSeconds: number;
}

/** The bound Basics Station endpoint. */
export interface BasicsStationListener {
  readonly port: number;
  /** The discovery URI stations are configured with (tc.uri), `ws(s)://host:port`. */
  readonly url: string;
  close(): Promise<void>;
}

const DATA_PATH = /^\/router-([^/?]+)$/;

/** The ID6 form of an EUI (4 groups of up to 4 hex digits), as the discovery answer names the router. */
function id6(hex16: string): string {
  hex16 = hex16.toUpperCase();
  return (hex16.match(/..../g) ?? []).map((g) => g.replace(/^0+(?=.)/, "").toLowerCase()).join(":");
}

function tokenMatches(expected: string | undefined, req: IncomingMessage): boolean {
  if (!expected) return true;
  const got = Buffer.from(String(req.headers.authorization ?? "").trim());
  const want = Buffer.from(expected.trim());
  return got.length === want.length && timingSafeEqual(got, want);
}

function refuseUpgrade(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * Serves LoRa Basics Station gateways (Basics Station docs, "The LNS Protocol") on their own port: `/router-info`
 * answers a station's discovery query with its data URI (`/router-<EUI>`), where the data connection runs. A
 * gateway must be registered as for the packet forwarder (a gateway record, gatewayProtocol 4, deviceID = its EUI);
 * with `token` set, its `Authorization` header must match. Each connection's faults close that connection only.
 */
export async function listenBasicsStation(options: BasicsStationOptions): Promise<BasicsStationListener> {
  const log = options.logger.child({ component: "basics-station" });
  let diid = 0n;
  const ctx: StationContext = {
    server: options.server,
    log,
    region: options.region,
    netId: options.netId,
    nextDiid: () => ++diid,
  };
  const http: Server = options.tls ? createHttpsServer(options.tls) : createHttpServer();
  http.on("request", (_req, res) => res.writeHead(426, { "content-type": "text/plain" }).end("WebSocket only\n"));
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_STATION_MESSAGE_BYTES });
  const scheme = options.tls ? "wss" : "ws";
  const sessions = new Map<string, WebSocket>();

  const discovery = (ws: WebSocket, req: IncomingMessage) => {
    ws.once("message", (data) => {
      const parsed = parseJsonObject((data as Buffer).toString("utf8"));
      const router = parsed.ok ? parseEui(parsed.value.router) : undefined;
      if (!router?.ok) {
        ws.send(JSON.stringify({ error: "router must be an EUI or ID6" }), () => ws.close(1000));
        return;
      }
      const eui = router.value.toLowerCase();
      void options.server.gateways.admit(eui, { address: req.socket.remoteAddress ?? "", port: 0 }, true).then((g) => {
        const host = req.headers.host ?? `${options.host}:${address()}`;
        const answer = g
          ? { router: id6(eui), muxs: "::1", uri: `${scheme}://${host}/router-${eui}` }
          : { router: id6(eui), error: "unknown gateway: no LoRa gateway record has this EUI" };
        ws.send(stringifyStation(answer), () => ws.close(1000));
      });
    });
  };

  const data = async (ws: WebSocket, req: IncomingMessage, eui: string) => {
    const lease = await options.server.gateways.admit(eui, { address: req.socket.remoteAddress ?? "", port: 0 }, true);
    if (!lease) return ws.close(1008, "unknown gateway");
    sessions.get(eui)?.close(1000, "replaced by a newer connection");
    sessions.set(eui, ws);
    ws.on("close", () => {
      if (sessions.get(eui) === ws) sessions.delete(eui);
    });
    new StationSession(ctx, ws, eui, lease);
  };

  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {});
    const path = (req.url ?? "").split("?")[0]!;
    const m = DATA_PATH.exec(path);
    const eui = m && m[1] !== "info" ? parseEui(decodeURIComponent(m[1]!)) : undefined;
    if (path !== "/router-info" && !eui?.ok) return refuseUpgrade(socket, "404 Not Found");
    if (!tokenMatches(options.token, req)) {
      log.warn({ peer: req.socket.remoteAddress, path }, "station refused: Authorization does not match");
      return refuseUpgrade(socket, "401 Unauthorized");
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on("error", (err) => log.debug({ err: err.message }, "station socket error"));
      if (eui?.ok)
        void data(ws, req, eui.value.toLowerCase()).catch((err: Error) => ws.close(1011, err.message.slice(0, 100)));
      else discovery(ws, req);
    });
  });

  const ping = setInterval(() => {
    for (const ws of sessions.values()) ws.ping();
  }, options.pingSeconds * 1000);
  ping.unref();

  await new Promise<void>((resolve, reject) => {
    http.once("error", (err) => reject(listenError(err, "lorawan adapter", options.port, "IOT_LORA_BASICS_PORT")));
    http.listen(options.port, options.host, () => resolve());
  });
  const address = () => {
    const a = http.address();
    return typeof a === "object" && a ? a.port : options.port;
  };
  return {
    port: address(),
    url: `${scheme}://${options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${address()}`,
    close: async () => {
      clearInterval(ping);
      for (const ws of sessions.values()) ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
