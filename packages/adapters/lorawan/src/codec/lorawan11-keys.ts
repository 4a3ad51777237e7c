// The LoRaWAN 1.1 key hierarchy (LoRaWAN 1.1 §6.1.1 and §6.2.2). A 1.1 device holds two root keys: the NwkKey,
// from which the network's session keys and the join server's lifetime keys come, and the AppKey, from which only
// the AppSKey comes, so the network server never needs the application's root key. lora-packet derives them, as it
// derives the 1.0.x keys in join.ts; this module checks the inputs first, so bad input is refused, never thrown.
import { parseHex } from "./hex.js";
import { loraPacket } from "./lora-packet.js";
import { ok, refuse, type Result } from "./result.js";

/** The four session keys of a LoRaWAN 1.1 join. */
export interface SessionKeys11 {
  /** Checks uplink MICs' cmacF half: the key a forwarding network server needs. */
  fNwkSIntKey: Buffer;
  /** Checks uplink MICs' cmacS half and makes downlink MICs. */
  sNwkSIntKey: Buffer;
  /** Encrypts FOpts and port-0 FRMPayloads. */
  nwkSEncKey: Buffer;
  /** Encrypts application FRMPayloads (derived from the AppKey, not the NwkKey). */
  appSKey: Buffer;
}

/** The join server's lifetime keys, derived from the NwkKey and DevEUI alone. */
export interface JoinServerKeys {
  /** MIC of JoinAccepts answering a JoinRequest with OptNeg set, and of Rejoin-Request type 1. */
  jsIntKey: Buffer;
  /** Encrypts JoinAccepts answering a Rejoin-Request. */
  jsEncKey: Buffer;
}

/** What a 1.1 join contributes to its keys; EUIs as 16 hex digits, most significant byte first. */
export interface Join11 {
  /** The network's 24-bit JoinNonce (a counter: it must increase with every JoinAccept). */
  joinNonce: number;
  joinEui: string;
  /** The device's 16-bit DevNonce (a counter in 1.1). */
  devNonce: number;
}

const isKey = (k: unknown): k is Buffer => Buffer.isBuffer(k) && k.length === 16;

function joinProblem(join: Join11): string | undefined {
  if (!Number.isInteger(join.joinNonce) || join.joinNonce < 0 || join.joinNonce > 0xffffff)
    return "joinNonce must be 0..16777215";
  if (!Number.isInteger(join.devNonce) || join.devNonce < 0 || join.devNonce > 0xffff)
    return "devNonce must be 0..65535";
  return undefined;
}

/**
 * The session keys of a 1.1 join with OptNeg set (§6.2.2): FNwkSIntKey, SNwkSIntKey and NwkSEncKey =
 * aes128_encrypt(NwkKey, 0x01 / 0x03 / 0x04 | JoinNonce | JoinEUI | DevNonce | pad16), and AppSKey =
 * aes128_encrypt(AppKey, 0x02 | JoinNonce | JoinEUI | DevNonce | pad16), each field least significant byte first.
 */
export function deriveSessionKeys11(appKey: Buffer, nwkKey: Buffer, join: Join11): Result<SessionKeys11> {
  if (!isKey(appKey)) return refuse("AppKey must be 16 bytes");
  if (!isKey(nwkKey)) return refuse("NwkKey must be 16 bytes");
  const problem = joinProblem(join);
  if (problem) return refuse(problem);
  const joinEui = parseHex(join.joinEui, 8, "joinEui");
  if (!joinEui.ok) return joinEui;
  const n = join.joinNonce;
  const keys = loraPacket.generateSessionKeys11(
    appKey,
    nwkKey,
    joinEui.value,
    Buffer.from([(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]),
    Buffer.from([join.devNonce >> 8, join.devNonce & 0xff]),
  );
  return ok({
    fNwkSIntKey: Buffer.from(keys.FNwkSIntKey),
    sNwkSIntKey: Buffer.from(keys.SNwkSIntKey),
    nwkSEncKey: Buffer.from(keys.NwkSEncKey),
    appSKey: Buffer.from(keys.AppSKey),
  });
}

/**
 * The join server's keys (§6.1.1.3): JSIntKey = aes128_encrypt(NwkKey, 0x06 | DevEUI | pad16) and JSEncKey the
 * same with 0x05, DevEUI least significant byte first. They do not change between joins.
 */
export function deriveJoinServerKeys(nwkKey: Buffer, devEui: string): Result<JoinServerKeys> {
  if (!isKey(nwkKey)) return refuse("NwkKey must be 16 bytes");
  const eui = parseHex(devEui, 8, "devEui");
  if (!eui.ok) return eui;
  const keys = loraPacket.generateJSKeys(nwkKey, eui.value);
  return ok({ jsIntKey: Buffer.from(keys.JSIntKey), jsEncKey: Buffer.from(keys.JSEncKey) });
}
