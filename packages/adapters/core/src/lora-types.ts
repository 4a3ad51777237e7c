/** What a LoRaWAN network server exchanges with the registry about a device, in plain TS types. */

/** A LoRaWAN network session: address, keys (hex) and frame counters (next expected up, next to use down). */
export interface LoraSessionInfo {
  readonly devAddr: string;
  readonly nwkSKey: string;
  readonly appSKey: string;
  readonly fcntUp: number;
  readonly fcntDown: number;
  /** LoRaWAN 1.1 sessions only: the network session keys, the two downlink counters and the join's JoinNonce. */
  readonly lorawan11?: LoraSession11Info;
}

/** The LoRaWAN 1.1 part of a session (hex keys; `nwkSKey` of the session is the FNwkSIntKey). */
export interface LoraSession11Info {
  readonly fNwkSIntKey: string;
  readonly sNwkSIntKey: string;
  readonly nwkSEncKey: string;
  /** Next NFCntDown (MAC-only downlinks) and AFCntDown (application downlinks) to use. */
  readonly nFCntDown: number;
  readonly aFCntDown: number;
  readonly joinNonce: number;
  /** Set when a Rejoin-Request made the session (LoraActivate's DevNonce is then its RJcount). */
  readonly rejoin?: boolean;
}

/** What a LoRaWAN network server needs of a device: join keys (OTAA), settings and its current session. */
export interface LoraDeviceInfo {
  readonly activation: "otaa" | "abp";
  readonly devEui: string;
  readonly appEui: string;
  readonly appKey: string;
  readonly canJoin: boolean;
  /** 0 strict 16-bit, 1 strict 32-bit, 2 reset on zero, 3 disabled. */
  readonly fcntCheck: number;
  readonly region: string;
  readonly classC: boolean;
  /** Class B: commands go out in the device's ping slots (a class C device is served as class C). */
  readonly classB?: boolean;
  /** Class B: the ping-slot periodicity 0..7 assumed until the device's PingSlotInfoReq says (default 7). */
  readonly pingSlotPeriodicity?: number;
  /** Always for ABP; for OTAA once it joined. */
  readonly session: LoraSessionInfo | null;
  /** DevNonces of its past joins (OTAA): a JoinRequest reusing one is a replay. */
  readonly usedDevNonces: readonly number[];
  /** LoRaWAN MAC version; 1.0.x when absent. */
  readonly macVersion?: "1.0.x" | "1.1";
  /** LoRaWAN 1.1 OTAA: the NwkKey beside the AppKey (empty for 1.0.x). */
  readonly nwkKey?: string;
  /** LoRaWAN 1.1 OTAA: the JoinNonce the next JoinAccept must carry (0 before the first join). */
  readonly nextJoinNonce?: number;
}

/** The registry's answer to a join's new session: OK, or why it was refused (UNAVAILABLE: not asked). */
export type LoraActivateResult = "OK" | "DEV_NONCE_REUSED" | "DEV_ADDR_TAKEN" | "NOT_ALLOWED" | "UNAVAILABLE";

/** Frame counters of a LoRa device as the network server holds them now. */
export interface LoraCounterReport {
  readonly deviceIntId: number;
  readonly fcntUp: number;
  readonly fcntDown: number;
}

/**
 * A group's LoRaWAN multicast session and the group's members this adapter holds (Downlink.loraMulticast): one frame
 * to the McAddr under its keys with McFCntDown `fcnt`, sent by each gateway that last heard a member.
 */
export interface LoraMulticastDownlink {
  /** 8 hex digits. */
  readonly mcAddr: string;
  /** 32 hex digits each. */
  readonly mcNwkSKey: string;
  readonly mcAppSKey: string;
  readonly fcnt: number;
  /** Region data rate index; absent: the region's RX2 one. */
  readonly dataRate?: number;
  /** Hz; absent: the region's RX2 frequency. */
  readonly frequencyHz?: number;
  readonly deviceIntIds: readonly number[];
}
