import type { LoraSessionState } from "../lora/lora-session-state.js";
import type { Lwm2mBootstrapSettings } from "../lwm2m/lwm2m-bootstrap.js";
import type { PushedRetained } from "./retained.js";

/** Who an authenticated device is, as the adapter needs to know it. */
export interface DeviceIdentity {
  tenantId: string;
  deviceIntId: number;
  deviceId: string;
  deviceName: string;
  productIntId: number;
  productId: string;
  protocol: number;
  /** Private topic namespace: the adapter prefixes it to every topic. */
  mountpoint: string;
  defaultDownlinkTopic: string;
  deviceType: number;
  isGateway: boolean;
  /** autoSub 1: the LwM2M server observes every object instance the device registers. */
  autoSub: boolean;
}

/** A topic rule of the device (a bound policy), as the adapters enforce it. */
export interface TopicRule {
  id: number;
  topic: string;
  access: number;
  allow: boolean;
}

/** A topic filter the adapter subscribes the device to on its behalf. */
export interface ProxyFilter {
  topic: string;
  qos: number;
}

/** The answer to a connect: the device admitted with all its session needs, or why it was refused. */
export type AuthOutcome =
  | {
      ok: true;
      device: DeviceIdentity;
      policies: TopicRule[];
      subscriptions: ProxyFilter[];
      /** Digest of the credentials admitted (see credentialStamp). */
      credentialStamp: string;
      /** LoRa devices: what the network server needs (keys, counters, settings). */
      lora?: LoraDevice;
      /** The device's retained messages, one per topic (retainedOfDevices); absent when it has none. */
      retained?: PushedRetained[];
      /** PSK credentials: the candidate DTLS keys (secret, never logged). */
      pskKeys?: Buffer[];
      /** LwM2M devices with bootstrap settings in their record. */
      lwm2mBootstrap?: Lwm2mBootstrapSettings;
    }
  | { ok: false; result: "BAD_CREDENTIALS" | "BLOCKED" | "NOT_ALLOWED"; message: string };

/** What a LoRaWAN network server needs of a device (proto LoraDevice). */
export interface LoraDevice {
  activation: "otaa" | "abp";
  devEui: string;
  appEui: string;
  appKey: string;
  canJoin: boolean;
  fcntCheck: number;
  region: string;
  classC: boolean;
  /** Class B, and the ping-slot periodicity (0..7) assumed until the device's PingSlotInfoReq. */
  classB?: boolean;
  pingSlotPeriodicity?: number;
  session: Omit<LoraSessionState, "devNonces" | "nextJoinNonce"> | null;
  usedDevNonces: number[];
  /** "1.0.x" or "1.1". */
  macVersion?: string;
  /** LoRaWAN 1.1 NwkKey (32 hex digits); empty for 1.0.x devices. */
  nwkKey?: string;
  /** LoRaWAN 1.1: the JoinNonce the next JoinAccept must carry. */
  nextJoinNonce?: number;
}

/** Devices speak relative topics; commands with no topic go here. */
export const DEFAULT_DOWNLINK_TOPIC = "inbox";
