import type { AdapterLink, DownlinkCommand } from "../sessions/session-table.js";
import { routedProperties } from "./command-properties.js";

/** A stored command still to deliver, with what routing it needs. */
export interface QueuedCommand {
  /** Its control log id (the downlink id adapters answer with). */
  id: number;
  deviceIntId: number;
  /** The device's string id, for the relay topic of a gateway. */
  deviceId: string;
  /** The device's gateway, when it sits behind one. */
  gateway: number | null;
  /** Relative topic on the device. */
  topic: string;
  payload: string;
  qos: number;
  /** Epoch ms; 0 = no limit. */
  expiresAt: number;
  /** MQTT 5.0 PUBLISH properties (JSON object text, `CommandProperties`), or null when none. */
  properties: string | null;
  /** MQTT: the packet identifier it went out with unacknowledged in a persistent session (control log), if any. */
  resumePacketId?: number | null;
  /** MQTT QoS 2: 1 when the device answered PUBREC before. */
  resumeReleased?: number | null;
}

/** An MQTT command that went out unacknowledged in a persistent session: its packet identifier, PUBREC answered. */
export interface ResumedFlow {
  packetId: number;
  released: boolean;
}

/** What an adapter's report on a downlink says beyond its status and message. */
export interface DownlinkReportDetail {
  /** The MQTT command went out unacknowledged in a persistent session (status issued): how it goes again. */
  resume?: ResumedFlow | undefined;
  /** A LoRaWAN multicast frame went out: the gateways that sent it and the group's members they last heard. */
  multicast?: { gateways: number; covered: number } | undefined;
}

/** Where a command goes now: an adapter stream and the session's device and topic there. */
export interface DownlinkRoute {
  link: AdapterLink;
  deviceIntId: number;
  topic: string;
  /** `devices/<deviceID>/` when the device's gateway relays it, else undefined. */
  relayPrefix?: string | undefined;
}

/**
 * Where a command for a device goes: its own session, or — for a device
 * behind a gateway that is not connected itself — its gateway's session, on
 * `devices/<deviceID>/<topic>` (the topic the gateway relays for it).
 * Undefined while neither is connected to this node.
 */
export function routeFor(
  route: (deviceIntId: number) => AdapterLink | undefined,
  cmd: QueuedCommand,
): DownlinkRoute | undefined {
  const own = route(cmd.deviceIntId);
  if (own) return { link: own, deviceIntId: cmd.deviceIntId, topic: cmd.topic };
  const viaGateway = cmd.gateway != null ? route(cmd.gateway) : undefined;
  if (!viaGateway || cmd.gateway == null) return undefined;
  const relayPrefix = `devices/${cmd.deviceId}/`;
  return { link: viaGateway, deviceIntId: cmd.gateway, topic: `${relayPrefix}${cmd.topic}`, relayPrefix };
}

/** The gRPC-free downlink an adapter link sends for a routed command. */
export function downlinkOf(cmd: QueuedCommand, route: DownlinkRoute): DownlinkCommand {
  const downlink: DownlinkCommand = {
    id: cmd.id,
    deviceIntId: route.deviceIntId,
    topic: route.topic,
    payload: Buffer.from(cmd.payload, "utf8"),
    qos: cmd.qos,
    expiresAt: cmd.expiresAt,
  };
  const properties = routedProperties(cmd.properties, route.relayPrefix);
  if (properties !== undefined) downlink.properties = properties;
  // Only to the device itself: a gateway's relayed child has no MQTT session of its own.
  if (cmd.resumePacketId != null && route.deviceIntId === cmd.deviceIntId) {
    downlink.resumePacketId = Number(cmd.resumePacketId);
    downlink.resumeReleased = cmd.resumeReleased === 1;
  }
  return downlink;
}

/**
 * Commands handed to an adapter and not answered yet, with the stream they
 * went down. A command is not sent twice down the same stream; after its
 * adapter reconnects (a new stream) it may be sent again — at-least-once, as
 * the answer of the old stream may be lost.
 */
export class InFlight {
  private readonly held = new Map<number, { link: AdapterLink; at: number }>();

  /** True when `id` may go down `link` now, and records that it did; false when it already went down that stream. */
  claim(id: number, link: AdapterLink, now: number): boolean {
    if (this.held.get(id)?.link === link) return false;
    this.held.set(id, { link, at: now });
    return true;
  }

  /** The command was answered or given up. */
  release(id: number): void {
    this.held.delete(id);
  }

  /** True while `id` went to an adapter less than `graceMs` ago: its answer may still come. */
  awaiting(id: number, now: number, graceMs: number): boolean {
    const h = this.held.get(id);
    return h !== undefined && now - h.at < graceMs;
  }

  get size(): number {
    return this.held.size;
  }
}
