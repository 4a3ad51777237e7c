/** A LoRa device's network state (devices.lora_session, JSON): its session and the DevNonces of its joins. */
export interface LoraSessionState {
  devAddr: string;
  nwkSKey: string;
  appSKey: string;
  /** The next uplink frame counter expected. */
  fcntUp: number;
  /** The next downlink frame counter to use. */
  fcntDown: number;
  /** DevNonces of past joins, oldest first, at most MAX_DEV_NONCES. */
  devNonces: number[];
  /** LoRaWAN 1.1 sessions: the network session keys (`nwkSKey` holds the FNwkSIntKey too). */
  fNwkSIntKey?: string;
  sNwkSIntKey?: string;
  nwkSEncKey?: string;
  /** LoRaWAN 1.1: next NFCntDown and AFCntDown (`fcntDown` is the higher of them). */
  nFcntDown?: number;
  aFcntDown?: number;
  /** LoRaWAN 1.1: the JoinNonce of the JoinAccept that made this session. */
  joinNonce?: number;
  /** LoRaWAN 1.1: the JoinNonce the next JoinAccept must carry; kept from join to join. */
  nextJoinNonce?: number;
}

/** A `lora` member that the creation rules made a string (hex keys, region), else "". */
export const text = (v: unknown): string => (typeof v === "string" ? v : "");

/** DevNonces remembered per device: a JoinRequest reusing one of these is refused as a replay. */
export const MAX_DEV_NONCES = 100;

/**
 * The device's current network state: the stored one, else for an ABP device the session its `lora` settings
 * describe (keys and initial counters), else none (an OTAA device that never joined).
 */
export function sessionState(
  stored: string | null,
  lora: Record<string, unknown> | null,
  deviceId: string,
): LoraSessionState | null {
  if (stored) return JSON.parse(stored) as LoraSessionState;
  if (lora?.type !== "abp") return null;
  return {
    devAddr: deviceId.toUpperCase(),
    nwkSKey: text(lora.nwkSKey),
    appSKey: text(lora.appSKey),
    fcntUp: Number(lora.fcntUp ?? 0),
    fcntDown: Number(lora.fcntDown ?? 0),
    devNonces: [],
  };
}
