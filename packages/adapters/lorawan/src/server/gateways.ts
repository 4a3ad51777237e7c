import { DeviceLeases, Lease, type RegistryClient } from "@iot/adapter-core";
import type { Logger } from "pino";
import type { GatewayStat } from "../codec/radio-packet.js";
import type { SemtechVersion } from "../codec/semtech-udp.js";
import type { GatewayLink } from "./gateway-link.js";

/** A UDP peer: where a datagram came from, or where one goes. */
export interface Peer {
  readonly address: string;
  readonly port: number;
}

/** Where a gateway's downlinks go: the source of its last PULL_DATA, and the protocol version it spoke. */
export interface PullPath extends Peer {
  readonly version: SemtechVersion;
}

/** Options of {@link GatewayTable}. */
export interface GatewayTableOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  readonly policyDefault: "allow" | "deny";
  /** Seconds without PULL_DATA after which a gateway's session closes (it goes offline). */
  readonly timeoutSeconds: number;
  /** How long a refused EUI is not asked about again, and logged at most once, ms (default 60,000). */
  readonly refusalMemoryMs?: number;
}

interface Refusal {
  readonly untilMs: number;
}

/**
 * The gateways of the network server. A gateway is known when the registry admits its EUI (a gateway record with
 * gatewayProtocol 4 and deviceID = EUI); its session ("lease") opens on its first packet and stays open while PULL_DATA
 * keepalives arrive, then closes after `timeoutSeconds` (the registry logs it offline). An unknown EUI is refused,
 * logged once per `refusalMemoryMs`, and not asked about again meanwhile, so a stray forwarder costs nothing.
 */
export class GatewayTable {
  readonly leases: DeviceLeases;
  readonly #log: Logger;
  readonly #paths = new Map<string, PullPath>();
  readonly #stations = new Map<string, GatewayLink>();
  readonly #open = new Map<string, Lease>();
  readonly #refused = new Map<string, Refusal>();
  readonly #refusalMemoryMs: number;

  constructor(options: GatewayTableOptions) {
    this.#log = options.logger;
    this.#refusalMemoryMs = options.refusalMemoryMs ?? 60_000;
    this.leases = new DeviceLeases({
      registry: options.registry,
      protocol: "lora",
      logger: options.logger,
      keepAliveSeconds: options.timeoutSeconds,
      policyDefault: options.policyDefault,
      idleReason: "PULL_DATA keepalives stopped",
    });
  }

  /** The gateway's session when it is known and open now (no registry call). */
  openLease(eui: string): Lease | undefined {
    const lease = this.#open.get(eui);
    return lease && !lease.closed ? lease : undefined;
  }

  /**
   * The gateway's session, opening it when needed; undefined for an EUI the registry refuses (logged, then
   * remembered for a while). `keepalive`: a PULL_DATA, which keeps the gateway online.
   */
  async admit(eui: string, peer: Peer, keepalive: boolean): Promise<Lease | undefined> {
    const open = this.openLease(eui);
    if (open) {
      if (keepalive) open.touch();
      return open;
    }
    const refused = this.#refused.get(eui);
    if (refused && refused.untilMs > Date.now()) return undefined;
    const lease = await this.leases.acquire({ kind: "lora", devEui: "", devAddr: "", gatewayEui: eui }, peer.address);
    if (!(lease instanceof Lease)) {
      if (lease.kind !== "auth" || lease.code !== "UNAVAILABLE")
        this.#refused.set(eui, { untilMs: Date.now() + this.#refusalMemoryMs });
      this.#log.warn({ gatewayEui: eui, peer: peer.address, reason: lease.message }, "unknown gateway ignored");
      return undefined;
    }
    if (!this.#open.has(eui) || this.#open.get(eui)!.closed) {
      this.#open.set(eui, lease);
      lease.onClose((reason) => {
        if (this.#open.get(eui) === lease) this.#open.delete(eui);
        this.#log.info({ gatewayEui: eui, reason }, "gateway offline");
      });
      this.#log.info({ gatewayEui: eui, deviceId: lease.session.device.deviceId }, "gateway online");
    }
    return lease;
  }

  /** Remembers where the gateway's downlinks go (its last PULL_DATA's source). */
  setPullPath(eui: string, path: PullPath): void {
    this.#paths.set(eui, path);
  }

  /** Where a downlink for the gateway goes; undefined before its first PULL_DATA or once it went offline. */
  pullPath(eui: string): PullPath | undefined {
    return this.openLease(eui) ? this.#paths.get(eui) : undefined;
  }

  /** Sets (or, with undefined, removes) the link of a gateway connected as a Basics Station. */
  setStationLink(eui: string, link: GatewayLink | undefined): void {
    if (link) this.#stations.set(eui, link);
    else this.#stations.delete(eui);
  }

  /** The Basics Station link of a gateway connected now and online. */
  stationLink(eui: string): GatewayLink | undefined {
    return this.openLease(eui) ? this.#stations.get(eui) : undefined;
  }

  /** Keeps a gateway `stat` report as an event of the gateway (topic `stat`, the report as JSON). */
  async keepStat(lease: Lease, stat: GatewayStat): Promise<void> {
    const refusal = await lease.publish("stat", Buffer.from(JSON.stringify(stat)), 0);
    if (refusal) this.#log.warn({ deviceId: lease.session.device.deviceId, reason: refusal.message }, "stat dropped");
  }

  /** Closes every gateway session (the adapter is stopping). */
  closeAll(reason: string): void {
    this.leases.closeAll(reason);
  }
}
