import { DeviceLeases, Fifo, type RegistryClient } from "@iot/adapter-core";
import type { Logger } from "pino";
import { betterCopy, UplinkDeduplicator } from "../codec/dedup.js";
import { hasGoodCrc } from "../codec/radio-packet.js";
import { acknowledgementOf, decodeSemtechPacket, type SemtechPacket } from "../codec/semtech-udp.js";
import { handleDataUplink } from "./data-uplink.js";
import type { DeviceState } from "./device-state.js";
import { downlinkConsumer } from "./downlinks.js";
import { udpLink } from "./gateway-link.js";
import { GatewayTable, type Peer } from "./gateways.js";
import { handleJoin } from "./join-handler.js";
import { withMulticast } from "./multicast.js";
import { handleRejoin } from "./rejoin-handler.js";
import { newStats, type Copy, type Heard, type ServerContext, type ServerStats } from "./server-context.js";
import { Transmitter, type SendDatagram } from "./transmitter.js";

/** What the network server needs from outside; the socket stays with the caller (`send`, and `receive` below). */
export interface NetworkServerOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  readonly send: SendDatagram;
  /** The network's NetID, 6 hex digits. */
  readonly netId: string;
  readonly policyDefault: "allow" | "deny";
  /** Seconds without PULL_DATA after which a gateway goes offline. */
  readonly gatewayTimeoutSeconds: number;
  /** Seconds without an uplink after which a device goes offline. */
  readonly deviceTimeoutSeconds: number;
  /** DevStatusReq on a device's first uplink and every this many (0 never; default 100). */
  readonly devStatusEvery?: number;
  /** Copies of one frame gathered for this long, ms (default 200). */
  readonly dedupWindowMs?: number;
  /**
   * A frame's bytes are remembered this long after its window closed, so late copies are dropped, ms (default 1,500:
   * less than a device's retransmission of an unacknowledged confirmed uplink, which must be ACKed again).
   */
  readonly dedupRememberMs?: number;
  /** A downlink is sent at least this long before its window opens, else the next window is used, ms (default 150). */
  readonly scheduleMarginMs?: number;
  /** A v2 gateway's TX_ACK is awaited this long, ms (default 1,000). */
  readonly txAckTimeoutMs?: number;
  /** Frame counters are reported to the registry this often, ms (default 1,000). */
  readonly counterReportMs?: number;
}

/** The LoRaWAN network server: feed it every datagram the packet-forwarder socket receives. */
export interface NetworkServer {
  /** `acknowledged`: the listener sent its PUSH_ACK / PULL_ACK already (see LorawanUdpThread). */
  receive(datagram: Buffer, peer: Peer, acknowledged?: boolean): void;
  /**
   * One gateway's copy of an uplink, from any gateway protocol: gathered with the other gateways' copies of the
   * same PHYPayload for the dedup window, then handled once. Returns false when it was a duplicate.
   */
  hear(phyPayload: Buffer, copy: Copy): boolean;
  readonly stats: ServerStats;
  readonly gateways: GatewayTable;
  /** Device states held now, by deviceIntId. */
  readonly devices: ReadonlyMap<number, DeviceState>;
  /** Reports counters, ends every session, stops timers. */
  close(): void;
}

/**
 * Builds the network server (LoRaWAN 1.0.x, Semtech UDP packet forwarder v1/v2): acknowledges PUSH_DATA and PULL_DATA
 * at once, keeps each gateway's downlink path, gathers copies of a frame for the dedup window, then handles joins
 * and data uplinks; TX_ACKs settle downlinks. A malformed datagram is counted and dropped (logged at most once a
 * minute), never fatal.
 */
export function createNetworkServer(options: NetworkServerOptions): NetworkServer {
  const log = options.logger.child({ component: "lorawan" });
  const stats = newStats();
  const gateways = new GatewayTable({
    registry: options.registry,
    logger: log,
    policyDefault: options.policyDefault,
    timeoutSeconds: options.gatewayTimeoutSeconds,
  });
  const devices = new DeviceLeases({
    registry: options.registry,
    protocol: "lora",
    logger: log,
    keepAliveSeconds: options.deviceTimeoutSeconds,
    policyDefault: options.policyDefault,
    idleReason: "no uplink within IOT_LORA_DEVICE_TIMEOUT",
  });
  const dh = devices.handlers();
  const gh = gateways.leases.handlers();
  options.registry.setHandlers({
    ...dh,
    downlink: withMulticast(() => ctx, dh),
    kick: (id, reason) => {
      dh.kick?.(id, reason);
      gh.kick?.(id, reason);
    },
  });
  const transmitter = new Transmitter(options.send, log, options.txAckTimeoutMs);
  const ctx: ServerContext = {
    registry: options.registry,
    log,
    netId: options.netId.toLowerCase(),
    gateways,
    devices,
    transmitter,
    link: (eui) => {
      const station = gateways.stationLink(eui);
      if (station) return station;
      const path = gateways.pullPath(eui);
      return path ? udpLink(transmitter, eui, path) : undefined;
    },
    stats,
    scheduleMarginMs: options.scheduleMarginMs ?? 150,
    devStatusEvery: options.devStatusEvery ?? 100,
    states: new Map(),
    byDevAddr: new Map(),
    byDevEui: new Map(),
    loading: new Map(),
    onState: (state) => {
      const stop = state.lease.consume("#", downlinkConsumer(ctx, state), () => {});
      if (typeof stop === "function") state.stopConsuming = stop;
      else log.warn({ deviceId: state.deviceId, reason: stop.message }, "commands cannot reach the device");
    },
  };
  const dedup = new UplinkDeduplicator<Copy>({
    windowMs: options.dedupWindowMs ?? 200,
    rememberMs: options.dedupRememberMs ?? 1_500,
  });
  let dedupTimer: NodeJS.Timeout | undefined;
  let lastMalformedLog = 0;

  const process = (heard: Heard) => {
    heard.copies.sort((a, b) => (betterCopy(a, b) ? -1 : betterCopy(b, a) ? 1 : 0));
    const mType = heard.phyPayload[0]! >> 5;
    const handled =
      mType === 0
        ? handleJoin(ctx, heard)
        : mType === 2 || mType === 4
          ? handleDataUplink(ctx, heard)
          : mType === 6
            ? handleRejoin(ctx, heard)
            : undefined;
    if (!handled) stats.badFrames++;
    handled?.catch((err: Error) => log.error({ err: err.message }, "uplink handling failed"));
  };
  // Uplinks whose window closed are handled a few per event-loop turn, so datagrams waiting on the socket (and
  // their PUSH_ACKs) are not held up behind a burst of MIC checks and decryptions.
  const ready = new Fifo<Heard>();
  let draining = false;
  const drain = () => {
    for (let n = 0; n < 8 && ready.length > 0; n++) process(ready.shift()!);
    draining = ready.length > 0;
    if (draining) setImmediate(drain);
  };
  const closeWindows = () => {
    dedupTimer = undefined;
    for (const heard of dedup.due(Date.now())) ready.push(heard);
    if (!draining && ready.length > 0) {
      draining = true;
      setImmediate(drain);
    }
    schedule();
  };
  const schedule = () => {
    const deadline = dedup.nextDeadline();
    if (dedupTimer || deadline === undefined) return;
    dedupTimer = setTimeout(closeWindows, Math.max(0, deadline - Date.now()));
  };

  const pushData = async (p: Extract<SemtechPacket, { type: "PUSH_DATA" }>, peer: Peer) => {
    const lease = gateways.openLease(p.gatewayEui) ?? (await gateways.admit(p.gatewayEui, peer, false));
    if (!lease) return;
    if (p.stat) void gateways.keepStat(lease, p.stat);
    stats.badFrames += p.ignored.length;
    const now = Date.now();
    for (const rx of p.rxpk) {
      if (!hasGoodCrc(rx)) {
        stats.badFrames++;
        continue;
      }
      hear(rx.data, { gatewayEui: p.gatewayEui, rx, gatewayLease: lease }, now);
    }
  };

  const hear = (phyPayload: Buffer, copy: Copy, now = Date.now()): boolean => {
    const outcome = dedup.add(phyPayload, copy, now);
    if (outcome === "first") schedule();
    else stats.duplicates++;
    return outcome === "first";
  };

  const counterTimer = setInterval(() => reportCounters(), options.counterReportMs ?? 1_000);
  counterTimer.unref();
  const reportCounters = () => {
    const dirty = [...ctx.states.values()].filter((s) => s.dirty && s.session);
    for (const s of dirty) s.dirty = false;
    if (dirty.length > 0) options.registry.reportLoraCounters(dirty.map((s) => s.reportedCounters!));
  };

  const receive = (datagram: Buffer, peer: Peer, acknowledged = false) => {
    stats.datagrams++;
    const decoded = decodeSemtechPacket(datagram);
    if (!decoded.ok) {
      stats.malformed++;
      if (Date.now() - lastMalformedLog > 60_000) {
        lastMalformedLog = Date.now();
        log.warn(
          { peer: peer.address, reason: decoded.reason, malformed: stats.malformed },
          "malformed datagram dropped",
        );
      }
      return;
    }
    const p = decoded.value;
    const ack = acknowledged ? undefined : acknowledgementOf(p);
    if (ack) options.send(ack, peer.port, peer.address);
    switch (p.type) {
      case "PUSH_DATA":
        void pushData(p, peer).catch((err: Error) => log.error({ err: err.message }, "PUSH_DATA handling failed"));
        return;
      case "PULL_DATA":
        gateways.setPullPath(p.gatewayEui, { address: peer.address, port: peer.port, version: p.version });
        void gateways.admit(p.gatewayEui, peer, true);
        return;
      case "TX_ACK":
        ctx.transmitter.acknowledged(p.gatewayEui, p.token, p.ack);
        return;
      default:
        stats.malformed++;
    }
  };

  return {
    receive,
    hear: (phyPayload, copy) => hear(phyPayload, copy),
    stats,
    gateways,
    devices: ctx.states,
    close() {
      clearTimeout(dedupTimer);
      clearInterval(counterTimer);
      reportCounters();
      devices.closeAll("adapter stopping");
      gateways.closeAll("adapter stopping");
      ctx.transmitter.close();
    },
  };
}
