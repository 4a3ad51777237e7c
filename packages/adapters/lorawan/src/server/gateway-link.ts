import type { TxPacket } from "../codec/radio-packet.js";
import type { Region } from "../codec/region.js";
import type { PullPath } from "./gateways.js";
import type { Copy } from "./server-context.js";
import type { TransmitOutcome, Transmitter } from "./transmitter.js";

/**
 * A downlink the shared scheduling (RX1/RX2, class B, class C) decided on, for one gateway to send. Written in the
 * packet forwarder's terms (a txpk with the window's timing); a gateway protocol that schedules otherwise (Basics
 * Station's `dnmsg`) translates it, and takes `fallback` too when it picks the window itself.
 */
export interface DownlinkRequest {
  readonly region: Region;
  /** The copy of the uplink answered (class A), or the copy the device was last heard through (class B, C). */
  readonly copy: Pick<Copy, "gatewayEui" | "rx" | "station">;
  /** Class A receive window, `immediate` for class C, or `ping`: a class B ping slot at the txpk's GPS time `tmms`. */
  readonly window: "rx1" | "rx2" | "immediate" | "ping";
  /** Seconds from the end of the uplink to RX1 (RxDelay, or JOIN_ACCEPT_DELAY1 for a JoinAccept). */
  readonly rx1DelayS: number;
  /** The txpk for `window`. */
  readonly tx: TxPacket;
  /** For `rx1`: the RX2 txpk, for a gateway that falls back to RX2 itself when RX1 cannot be met. */
  readonly fallback?: TxPacket;
  /** The device's DevEUI when known (a Basics Station logs and echoes it). */
  readonly devEui?: string;
}

/** How a downlink reaches one gateway, whatever its protocol; resolves with the gateway's verdict. */
export interface GatewayLink {
  readonly protocol: "semtech-udp" | "basics-station";
  transmit(request: DownlinkRequest): Promise<TransmitOutcome>;
}

/** The Semtech UDP gateway's link: a PULL_RESP to the source of its last PULL_DATA, settled by its TX_ACK. */
export function udpLink(transmitter: Transmitter, gatewayEui: string, path: PullPath): GatewayLink {
  return { protocol: "semtech-udp", transmit: (request) => transmitter.transmit(gatewayEui, path, request.tx) };
}
