/**
 * What the session table and the router hold of an attached adapter and its sessions, in plain types (the gRPC edge
 * converts): its link, the sessions it reports, and what is pushed through it.
 */

import type { PushedRetained } from "../domain/retained.js";

/** A command on its way to a device, in plain types (the gRPC edge converts). */
export interface DownlinkCommand {
  id: number;
  deviceIntId: number;
  topic: string;
  payload: Uint8Array;
  qos: number;
  /** Epoch ms; 0 = no limit. */
  expiresAt: number;
  /** MQTT 5.0 PUBLISH properties (JSON object text, `CommandProperties`); absent when none. */
  properties?: string | undefined;
  /**
   * MQTT: the packet identifier a persistent session was sent it with, unacknowledged; a resumed session gets it again
   * with it (DUP 1), or only PUBREL when `resumeReleased` (the device answered PUBREC). Absent: a new message.
   */
  resumePacketId?: number | undefined;
  resumeReleased?: boolean | undefined;
  /** LoRaWAN: the command goes as one multicast frame of a group's session (see LoraMulticastCommand). */
  loraMulticast?: LoraMulticastCommand | undefined;
}

/**
 * A group's LoRaWAN multicast session and the members an adapter holds: the adapter sends one frame to the McAddr
 * through each gateway that last heard one of them.
 */
interface LoraMulticastCommand {
  /** 8 hex digits. */
  mcAddr: string;
  /** 32 hex digits each. */
  mcNwkSKey: string;
  mcAppSKey: string;
  /** The McFCntDown of this frame. */
  fcnt: number;
  /** Region data rate index; absent: the region's RX2 one. */
  dataRate?: number | undefined;
  /** Hz; absent: the region's RX2 frequency. */
  frequencyHz?: number | undefined;
  deviceIntIds: number[];
}

/** A topic rule pushed to live sessions (Form 1 access code; deny wins). */
interface PushedPolicy {
  id: number;
  topic: string;
  access: number;
  allow: boolean;
}

/** A proxy subscription pushed to live sessions (relative filter). */
interface PushedSubscription {
  topic: string;
  qos: number;
}

/** The registry's handle on one attached adapter instance's stream. */
export interface AdapterLink {
  readonly instanceId: string;
  /** cloudProtocol code of the adapter (1 MQTT, 2 CoAP, …). */
  readonly protocol: number;
  readonly version: string;
  readonly attachedAt: number;
  sendDownlink(command: DownlinkCommand): void;
  kick(deviceIntId: number, reason: string): void;
  /** Replaces the policies of the device's sessions on this adapter. */
  updatePolicies(deviceIntId: number, policies: readonly PushedPolicy[]): void;
  /** Replaces the proxy subscriptions of the device's sessions on this adapter. */
  updateSubscriptions(deviceIntId: number, subscriptions: readonly PushedSubscription[]): void;
  /** Replaces the retained messages of the device's sessions on this adapter (one per topic). */
  updateRetained(deviceIntId: number, retained: readonly PushedRetained[]): void;
  /** Tells the adapter a tenant's uplink rate limit (messages per second, 0 = unlimited) changed. */
  updateTenantLimits(tenantId: string, maxUplinkRate: number): void;
}

/** A device session as the adapter reported it. */
export interface LiveSession {
  sessionId: string;
  deviceIntId: number;
  /** The credential stamp the session was admitted with ("" when unknown). */
  credentialStamp: string;
  tenantId: string;
  clientIp: string;
  keepAlive: number;
  openedAt: number;
  /** The device sleeps between check-ins (LwM2M queue mode): stored as deviceStatus 2. Unset means awake. */
  sleeping?: boolean;
}
