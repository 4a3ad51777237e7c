import type { DownlinkOutcome, Lease, LoraDeviceInfo } from "@iot/adapter-core";
import type { DownlinkMacCommand } from "../mac/mac-commands.js";
import type { RxPacket } from "../codec/radio-packet.js";
import type { Region } from "../codec/region.js";
import type { StationUpinfo } from "./server-context.js";
import type { FCntCheck, UplinkSession } from "../codec/uplink.js";
import { session11FromInfo, type Session11 } from "./lorawan11.js";

/** An application downlink waiting for the device's next receive window. */
export interface QueuedDownlink {
  readonly id: number;
  readonly fPort: number;
  readonly payload: Buffer;
  /** Confirmed Data Down: DELIVERED only once the device ACKs it. */
  readonly confirmed: boolean;
  readonly settle: (outcome: DownlinkOutcome) => void;
}

/** The session the network server checks a device's frames with, plus the downlink counter. */
export interface NetworkSession extends UplinkSession {
  /** Next FCntDown to use (32 bits); in a 1.1 session the higher of NFCntDown and AFCntDown (what is reported). */
  fcntDown: number;
  /** A LoRaWAN 1.1 session: its keys and two downlink counters (`nwkSKey` is then the FNwkSIntKey). */
  v11?: Session11;
}

/** Where the device was last heard: the gateway to answer class C downlinks through, and its rxpk. */
export interface LastHeard {
  readonly gatewayEui: string;
  readonly rx: RxPacket;
  /** The Basics Station's upinfo when the copy came from one (its rctx picks the antenna for class C). */
  readonly station?: StationUpinfo | undefined;
}

/**
 * What the network server keeps of one LoRa device while its session is open: settings from the registry, the
 * network session, downlinks waiting for a receive window, a sent confirmed downlink waiting for its ACK, MAC
 * commands to piggyback, and the SNR of recent uplinks for ADR.
 */
export class DeviceState {
  session: NetworkSession | null;
  usedDevNonces: number[];
  readonly queue: QueuedDownlink[] = [];
  /** A confirmed downlink sent, waiting for the ACK bit of the device's next uplink. */
  awaitingAck: QueuedDownlink | undefined;
  /** MAC commands for the next downlink (answers and requests). */
  macOut: DownlinkMacCommand[] = [];
  /** SNR (dB) of the best copy of recent uplinks, newest last (ADR). */
  snrHistory: number[] = [];
  /** A LinkADRReq was sent and its LinkADRAns has not come yet. */
  adrPending = false;
  /** Uplinks accepted in this session (DevStatusReq pacing). */
  uplinks = 0;
  lastHeard: LastHeard | undefined;
  /**
   * Class B: the ping-slot periodicity (0..7) of this session, the record's until the device's PingSlotInfoReq;
   * whether its last uplink set the ClassB bit (it listens in its ping slots); the copies of that uplink from
   * gateways that report GPS time (the only ones that can send at a ping slot); the GPS time (ms) of the last ping
   * slot used, so the next downlink takes a later one; and whether one is being sent now.
   */
  pingSlotPeriodicity: number;
  classBOn = false;
  gpsCopies: LastHeard[] = [];
  lastPingSlotMs = 0;
  pinging = false;
  /** Counters changed since they were last reported to the registry. */
  dirty = false;
  /**
   * FCnts of uplinks handed to the registry and not acknowledged yet. The counter reported stays below them, so a
   * server restarted after a crash takes the device's retransmission of such a frame as new and stores it.
   */
  readonly unstored = new Set<number>();
  /** Whether the last accepted uplink was stored (once the registry answered): gates a retransmission's ACK. */
  lastStored: Promise<boolean> | undefined;
  /** LoRaWAN 1.1: the JoinNonce the next JoinAccept carries. */
  nextJoinNonce: number;
  /** LoRaWAN 1.1: the lowest RJcount0 (this session's type 0/2 Rejoin-Requests) and RJcount1 (type 1) accepted next. */
  nextRjCount0 = 0;
  nextRjCount1 = 0;
  /** FCnt of the last accepted uplink: a 1.1 downlink acknowledging it carries it in its MIC (ConfFCnt). */
  lastUplinkFCnt = 0;
  /** FCnt of the last confirmed downlink sent: a 1.1 uplink acknowledging it carries it in its MIC. */
  confirmedDownFCnt = 0;
  /** Removes the downlink consumer from the lease. */
  stopConsuming: (() => void) | undefined;

  constructor(
    readonly lease: Lease,
    readonly lora: LoraDeviceInfo,
    readonly region: Region,
  ) {
    this.usedDevNonces = [...lora.usedDevNonces];
    this.nextJoinNonce = lora.nextJoinNonce ?? 0;
    this.pingSlotPeriodicity = lora.pingSlotPeriodicity ?? 7;
    const s = lora.session;
    const v11 = s?.lorawan11 && session11FromInfo(s.lorawan11);
    this.session = s && {
      devAddr: s.devAddr.toLowerCase(),
      nwkSKey: Buffer.from(s.nwkSKey, "hex"),
      appSKey: Buffer.from(s.appSKey, "hex"),
      fcntUp: s.fcntUp,
      fcntDown: s.fcntDown,
      fcntCheck: ([0, 1, 2, 3].includes(lora.fcntCheck) ? lora.fcntCheck : 0) as FCntCheck,
      ...(v11 ? { v11 } : {}),
    };
  }

  get deviceIntId(): number {
    return this.lease.session.device.deviceIntId;
  }

  get deviceId(): string {
    return this.lease.session.device.deviceId;
  }

  /**
   * The counters the registry may keep: the next FCntUp, but never past an uplink it has not stored (a restarted
   * server that resumed past it would take the device's retransmission for a replay and lose the frame).
   */
  get reportedCounters(): { deviceIntId: number; fcntUp: number; fcntDown: number } | undefined {
    if (!this.session) return undefined;
    const fcntUp = Math.min(this.session.fcntUp, ...this.unstored);
    return { deviceIntId: this.deviceIntId, fcntUp, fcntDown: this.session.fcntDown };
  }

  /** Fails every downlink held here (the session ended). */
  failAll(message: string): void {
    for (const q of this.queue.splice(0)) q.settle({ status: "FAILED", message });
    this.awaitingAck?.settle({ status: "FAILED", message });
    this.awaitingAck = undefined;
  }
}
