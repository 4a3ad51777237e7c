import type { Lease } from "@iot/adapter-core";
import type { Logger } from "pino";
import type { WebSocket } from "ws";
import type { Region } from "../../codec/region.js";
import type { NetworkServer } from "../network-server.js";
import { routerConfig } from "./router-config.js";
import { gpsMicros, parseStationJson, stringifyStation } from "./station-json.js";
import { stationLink } from "./station-link.js";
import { readStationMessage } from "./station-messages.js";

/** What a station's data connection needs from the adapter. */
export interface StationContext {
  readonly server: Pick<NetworkServer, "hear" | "gateways" | "stats">;
  readonly log: Logger;
  readonly region: Region;
  readonly netId: string;
  /** Sequence of `diid`s, shared by every station so a dntxed names one downlink. */
  readonly nextDiid: () => bigint;
}

/** WebSocket close codes: 1007 a message that is not what the protocol says, 1003 a binary record. */
const INVALID_PAYLOAD = 1007;
const UNSUPPORTED = 1003;

/**
 * One station's data connection (Basics Station docs, "Connecting to an LNS"): answers `version` with the
 * `router_config` of the adapter's region, hands jreq/updf/propdf to the shared uplink path as this gateway's copy,
 * counts `dntxed`, answers `timesync` with the GPS time, and is the gateway's downlink link while open. A malformed
 * or binary record closes this connection only; the station reconnects.
 */
export class StationSession {
  #configured = false;

  constructor(
    private readonly ctx: StationContext,
    private readonly ws: WebSocket,
    private readonly eui: string,
    private readonly lease: Lease,
  ) {
    const link = stationLink((m) => this.send(m), ctx.nextDiid);
    ctx.server.gateways.setStationLink(eui, link);
    lease.onClose((reason) => ws.close(1000, reason.slice(0, 100)));
    ws.on("message", (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on("pong", () => lease.touch());
    ws.on("close", () => {
      if (ctx.server.gateways.stationLink(eui) === link) ctx.server.gateways.setStationLink(eui, undefined);
    });
  }

  /** Writes a message with the round-trip `MuxTime`; rejects when the socket is closed or the write fails. */
  send(message: object): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.ws.readyState !== this.ws.OPEN) return reject(new Error("station disconnected"));
      this.ws.send(stringifyStation({ ...message, MuxTime: Date.now() / 1000 }), (err) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  #close(code: number, reason: string): void {
    this.ctx.server.stats.malformed++;
    this.ctx.log.warn({ gatewayEui: this.eui, reason }, "station message refused; connection closed");
    this.ws.close(code, reason.slice(0, 120));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (isBinary) return this.#close(UNSUPPORTED, "binary records are not part of the LNS protocol");
    this.lease.touch();
    this.ctx.server.stats.datagrams++;
    const parsed = parseStationJson(data.toString("utf8"));
    if (!parsed.ok) return this.#close(INVALID_PAYLOAD, parsed.reason);
    const m = readStationMessage(parsed.value, this.ctx.region);
    if (!m.ok) return this.#close(INVALID_PAYLOAD, `${parsed.value.msgtype}: ${m.reason}`);
    const msg = m.value;
    switch (msg.msgtype) {
      case "version":
        this.ctx.log.info({ gatewayEui: this.eui, station: msg.station, model: msg.model }, "basics station connected");
        this.#configured = true;
        void this.send(routerConfig(this.ctx.region, this.ctx.netId)).catch(() => {});
        return;
      case "uplink":
        if (!this.#configured) return this.#close(INVALID_PAYLOAD, "uplink before version");
        this.ctx.server.hear(msg.phyPayload, {
          gatewayEui: this.eui,
          rx: msg.rx,
          gatewayLease: this.lease,
          station: msg.upinfo,
        });
        return;
      case "dntxed":
        this.ctx.server.stats.txConfirmed++;
        this.ctx.log.debug({ gatewayEui: this.eui, diid: String(msg.diid) }, "downlink on air");
        return;
      case "timesync":
        void this.send({ msgtype: "timesync", txtime: msg.txtime, gpstime: gpsMicros(Date.now()) }).catch(() => {});
        return;
      case "other":
        this.ctx.log.debug({ gatewayEui: this.eui, msgtype: msg.type }, "station message ignored");
    }
  }
}
