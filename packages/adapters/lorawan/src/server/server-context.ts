import { DeviceLeases, Lease, type RegistryClient } from "@iot/adapter-core";
import type { Logger } from "pino";
import type { DedupedUplink, HeardCopy } from "../codec/dedup.js";
import type { RxPacket } from "../codec/radio-packet.js";
import { regionByName } from "../codec/region.js";
import { DeviceState } from "./device-state.js";
import type { GatewayLink } from "./gateway-link.js";
import type { GatewayTable } from "./gateways.js";
import type { Transmitter } from "./transmitter.js";

/**
 * What a Basics Station reports with an uplink (`upinfo`) and wants back in the `dnmsg` answering it: its 64-bit
 * receive time and antenna context (bigint: the values use all 64 bits), and the GPS time (µs, 0 without GPS).
 */
export interface StationUpinfo {
  readonly xtime: bigint;
  readonly rctx: bigint;
  readonly gpstime: bigint;
}

/**
 * One gateway's copy of an uplink, with the gateway's session (for metadata). `rx` is the radio metadata in the
 * packet forwarder's terms whatever the gateway's protocol, so dedup, metadata and scheduling are shared.
 */
export interface Copy extends HeardCopy {
  rx: RxPacket;
  gatewayLease: Lease;
  /** Set for a copy from a Basics Station. */
  station?: StationUpinfo;
}

/** An uplink once its dedup window closed. */
export type Heard = DedupedUplink<Copy>;

/** Counters of what the server saw, for logs, tests and the bench. */
export interface ServerStats {
  datagrams: number;
  /** Datagrams that were not packet-forwarder packets (dropped). */
  malformed: number;
  /** rxpks with a bad CRC or that were not LoRaWAN frames we read. */
  badFrames: number;
  /** Copies of an uplink another gateway (or the same) had forwarded already. */
  duplicates: number;
  uplinks: number;
  /** Frames refused: unknown DevAddr, MIC mismatch. */
  unauthentic: number;
  /** Frames whose counter was refused (replays, gaps). */
  replays: number;
  joins: number;
  joinsRefused: number;
  downlinks: number;
  /** Basics Station `dntxed`: downlinks a station reported on air. */
  txConfirmed: number;
}

/** What the server's parts share. */
export interface ServerContext {
  readonly registry: RegistryClient;
  readonly log: Logger;
  readonly netId: string;
  readonly gateways: GatewayTable;
  readonly devices: DeviceLeases;
  readonly transmitter: Transmitter;
  /** How a downlink reaches the gateway now (its Basics Station socket or its UDP pull path); undefined: it cannot. */
  readonly link: (gatewayEui: string) => GatewayLink | undefined;
  readonly stats: ServerStats;
  /** ms before a receive window opens by which a downlink must be sent, or the next window is used. */
  readonly scheduleMarginMs: number;
  readonly devStatusEvery: number;
  readonly states: Map<number, DeviceState>;
  /** Devices by DevAddr (8 lower-case hex digits) and DevEUI (16). */
  readonly byDevAddr: Map<string, DeviceState>;
  readonly byDevEui: Map<string, DeviceState>;
  /** Called when a device's state is set up: registers its downlink consumer. */
  readonly onState: (state: DeviceState) => void;
  readonly loading: Map<string, Promise<DeviceState | undefined>>;
}

/** A zeroed {@link ServerStats}. */
export function newStats(): ServerStats {
  return {
    datagrams: 0,
    malformed: 0,
    badFrames: 0,
    duplicates: 0,
    uplinks: 0,
    unauthentic: 0,
    replays: 0,
    joins: 0,
    joinsRefused: 0,
    downlinks: 0,
    txConfirmed: 0,
  };
}

/** Indexes a device's state by its session's DevAddr (dropping its previous one). */
export function indexDevAddr(ctx: ServerContext, state: DeviceState, previous?: string): void {
  if (previous && ctx.byDevAddr.get(previous) === state) ctx.byDevAddr.delete(previous);
  if (state.session) ctx.byDevAddr.set(state.session.devAddr, state);
}

/**
 * The state of the device a frame names, opening its session with the registry when this adapter does not hold it
 * (by DevEUI for a JoinRequest, DevAddr for a data frame). Undefined when the registry does not know the device or
 * its LoRa settings are unusable (logged).
 */
export function loadDevice(
  ctx: ServerContext,
  by: { devEui: string } | { devAddr: string },
  clientIp: string,
): Promise<DeviceState | undefined> {
  const key = JSON.stringify(by);
  const pending = ctx.loading.get(key);
  if (pending) return pending;
  const loading = open(ctx, by, clientIp).finally(() => ctx.loading.delete(key));
  ctx.loading.set(key, loading);
  return loading;
}

async function open(
  ctx: ServerContext,
  by: { devEui: string } | { devAddr: string },
  clientIp: string,
): Promise<DeviceState | undefined> {
  const credentials = {
    kind: "lora" as const,
    devEui: "devEui" in by ? by.devEui.toUpperCase() : "",
    devAddr: "devAddr" in by ? by.devAddr.toUpperCase() : "",
  };
  const lease = await ctx.devices.acquire(credentials, clientIp);
  if (!(lease instanceof Lease)) {
    ctx.log.info({ ...by, reason: lease.message }, "frame of an unknown LoRa device ignored");
    return undefined;
  }
  const current = ctx.states.get(lease.session.device.deviceIntId);
  if (current?.lease === lease) return current;
  const lora = lease.session.lora;
  const region = regionByName(lora?.region ?? "");
  if (!lora || !region.ok) {
    ctx.log.warn({ deviceId: lease.session.device.deviceId, reason: lora ? region : "no lora" }, "bad LoRa settings");
    lease.close("LoRa settings unusable");
    return undefined;
  }
  current?.lease.close("replaced by a newer session");
  const state = new DeviceState(lease, lora, region.value);
  ctx.states.set(state.deviceIntId, state);
  indexDevAddr(ctx, state);
  if (lora.devEui) ctx.byDevEui.set(lora.devEui.toLowerCase(), state);
  lease.onClose((reason) => {
    if (ctx.states.get(state.deviceIntId) === state) ctx.states.delete(state.deviceIntId);
    if (state.session && ctx.byDevAddr.get(state.session.devAddr) === state)
      ctx.byDevAddr.delete(state.session.devAddr);
    if (ctx.byDevEui.get(lora.devEui.toLowerCase()) === state) ctx.byDevEui.delete(lora.devEui.toLowerCase());
    state.stopConsuming?.();
    state.failAll(`device session ended: ${reason}`);
    const counters = state.reportedCounters;
    if (state.dirty && counters) ctx.registry.reportLoraCounters([counters]);
  });
  ctx.onState(state);
  return state;
}
