// Over-the-air activation of LoRaWAN 1.0.x (LoRaWAN 1.0.2 §6.2): the JoinRequest a device sends, the encrypted
// JoinAccept the network answers with, and the session keys both derive. lora-packet does the MIC, encryption
// and key derivation; this module checks the frames' shape first, so malformed input is refused, never thrown.
import { parseHex, reversed, toHex } from "./hex.js";
import { loraPacket } from "./lora-packet.js";
import { ok, refuse, type Result } from "./result.js";

/** PHYPayload length of a JoinRequest: MHDR, AppEUI (8), DevEUI (8), DevNonce (2), MIC (4). */
export const JOIN_REQUEST_BYTES = 23;

/** A JoinRequest's fields; EUIs as 16 lower-case hex digits, most significant byte first. */
export interface JoinRequest {
  appEui: string;
  devEui: string;
  /** The device's random nonce (0..65535); a network refuses one it has seen from the device before. */
  devNonce: number;
}

/** What a JoinAccept carries (LoRaWAN 1.0.2 §6.2.5). */
export interface JoinAcceptFields {
  /** AppNonce (JoinNonce in 1.1), 24 bits, chosen by the network for each join. */
  appNonce: number;
  /** The network's NetID, 6 hex digits. */
  netId: string;
  /** The address given to the device, 8 hex digits. */
  devAddr: string;
  /** RX1 data-rate offset (DLSettings bits 6..4, 0..7; the region allows fewer). */
  rx1DrOffset: number;
  /** RX2 data rate (DLSettings bits 3..0). */
  rx2DataRate: number;
  /** RX1 delay in s (RxDelay, 0..15; 0 means 1 s). */
  rxDelay: number;
  /** The 16-byte CFList, if the region sends one. */
  cfList?: Buffer;
}

/** The LoRaWAN 1.0.x session keys derived from a join. */
export interface SessionKeys {
  nwkSKey: Buffer;
  appSKey: Buffer;
}

const MTYPE_JOIN_REQUEST = 0;
const MTYPE_JOIN_ACCEPT = 1;

function checkKey(key: Buffer, what: string): string | undefined {
  return Buffer.isBuffer(key) && key.length === 16 ? undefined : `${what} must be 16 bytes`;
}

function mhdrProblem(phy: Uint8Array, mtype: number, name: string): string | undefined {
  if (phy.length === 0) return `${name} is empty`;
  if (phy[0]! >> 5 !== mtype) return `MType ${phy[0]! >> 5} is not a ${name} (${mtype})`;
  if ((phy[0]! & 0x03) !== 0) return `major version ${phy[0]! & 0x03} is not LoRaWAN R1 (0)`;
  return undefined;
}

/** Reads a JoinRequest's AppEUI, DevEUI and DevNonce without checking its MIC (to find the device and its key). */
export function parseJoinRequest(phy: Uint8Array): Result<JoinRequest> {
  const problem = mhdrProblem(phy, MTYPE_JOIN_REQUEST, "JoinRequest");
  if (problem) return refuse(problem);
  if (phy.length !== JOIN_REQUEST_BYTES)
    return refuse(`a JoinRequest is ${JOIN_REQUEST_BYTES} bytes, got ${phy.length}`);
  return ok({
    appEui: toHex(reversed(phy.subarray(1, 9))),
    devEui: toHex(reversed(phy.subarray(9, 17))),
    devNonce: phy[17]! | (phy[18]! << 8),
  });
}

/**
 * A JoinRequest whose MIC is right under the device's AppKey (aes128_cmac over MHDR | AppEUI | DevEUI | DevNonce,
 * §6.2.4): its fields, or why it is refused. Finding the device and refusing a reused DevNonce are the caller's.
 */
export function verifyJoinRequest(phy: Uint8Array, appKey: Buffer): Result<JoinRequest> {
  const parsed = parseJoinRequest(phy);
  if (!parsed.ok) return parsed;
  const keyProblem = checkKey(appKey, "AppKey");
  if (keyProblem) return refuse(keyProblem);
  try {
    const packet = loraPacket.fromWire(Buffer.from(phy));
    if (!loraPacket.verifyMIC(packet, undefined, appKey)) return refuse("JoinRequest MIC does not match the AppKey");
  } catch (e) {
    return refuse(`JoinRequest could not be checked: ${(e as Error).message}`);
  }
  return parsed;
}

/**
 * Records a JoinRequest's DevNonce among those the device used before: the new list (oldest dropped past `keep`),
 * or a refusal when the nonce was used already — a replayed JoinRequest (§6.2.4).
 */
export function rememberDevNonce(used: readonly number[], devNonce: number, keep = 100): Result<number[]> {
  if (!Number.isInteger(devNonce) || devNonce < 0 || devNonce > 0xffff)
    return refuse(`DevNonce ${devNonce} must be 0..65535`);
  if (used.includes(devNonce)) return refuse(`DevNonce ${devNonce} was used before: a replayed JoinRequest`);
  return ok([...used, devNonce].slice(-Math.max(1, keep)));
}

function fieldsProblem(f: JoinAcceptFields): string | undefined {
  if (!Number.isInteger(f.appNonce) || f.appNonce < 0 || f.appNonce > 0xffffff) return "appNonce must be 0..16777215";
  if (!Number.isInteger(f.rx1DrOffset) || f.rx1DrOffset < 0 || f.rx1DrOffset > 7) return "rx1DrOffset must be 0..7";
  if (!Number.isInteger(f.rx2DataRate) || f.rx2DataRate < 0 || f.rx2DataRate > 15) return "rx2DataRate must be 0..15";
  if (!Number.isInteger(f.rxDelay) || f.rxDelay < 0 || f.rxDelay > 15) return "rxDelay must be 0..15 s";
  if (f.cfList !== undefined && (!Buffer.isBuffer(f.cfList) || f.cfList.length !== 16))
    return "cfList must be 16 bytes";
  return undefined;
}

const uint24 = (n: number) => Buffer.from([(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]);

/**
 * The JoinAccept PHYPayload ready to send: MIC under the AppKey over the plain fields, then everything after the
 * MHDR encrypted with aes128_decrypt(AppKey) as §6.2.5 prescribes, so the device decrypts it with AES encrypt.
 * 17 bytes, or 33 with a CFList.
 */
export function buildJoinAccept(fields: JoinAcceptFields, appKey: Buffer): Result<Buffer> {
  const problem = fieldsProblem(fields) ?? checkKey(appKey, "AppKey");
  if (problem) return refuse(problem);
  const netId = parseHex(fields.netId, 3, "netId");
  if (!netId.ok) return netId;
  const devAddr = parseHex(fields.devAddr, 4, "devAddr");
  if (!devAddr.ok) return devAddr;
  try {
    const packet = loraPacket.fromFields(
      {
        MType: "Join Accept",
        AppNonce: uint24(fields.appNonce),
        NetID: netId.value,
        DevAddr: devAddr.value,
        DLSettings: (fields.rx1DrOffset << 4) | fields.rx2DataRate,
        RxDelay: fields.rxDelay,
        CFList: fields.cfList ?? Buffer.alloc(0),
      },
      undefined,
      undefined,
      appKey,
    );
    const phy = packet.getPHYPayload();
    if (!phy || phy.length !== (fields.cfList ? 33 : 17)) return refuse("lora-packet built no JoinAccept");
    return ok(Buffer.from(phy));
  } catch (e) {
    return refuse(`JoinAccept could not be built: ${(e as Error).message}`);
  }
}

/**
 * Decrypts a JoinAccept as a device does and checks its MIC: the fields, or why not. For simulated devices and
 * tests; the network server only builds JoinAccepts.
 */
export function decodeJoinAccept(phy: Uint8Array, appKey: Buffer): Result<JoinAcceptFields> {
  const problem = mhdrProblem(phy, MTYPE_JOIN_ACCEPT, "JoinAccept") ?? checkKey(appKey, "AppKey");
  if (problem) return refuse(problem);
  if (phy.length !== 17 && phy.length !== 33) return refuse(`a JoinAccept is 17 or 33 bytes, got ${phy.length}`);
  try {
    const plain = loraPacket.decryptJoinAccept(loraPacket.fromWire(Buffer.from(phy)), appKey);
    const packet = loraPacket.fromWire(plain);
    if (!loraPacket.verifyMIC(packet, undefined, appKey)) return refuse("JoinAccept MIC does not match the AppKey");
    const dl = plain[11]!;
    const fields: JoinAcceptFields = {
      appNonce: plain.readUIntLE(1, 3),
      netId: toHex(reversed(plain.subarray(4, 7))),
      devAddr: toHex(reversed(plain.subarray(7, 11))),
      rx1DrOffset: (dl >> 4) & 0x07,
      rx2DataRate: dl & 0x0f,
      rxDelay: plain[12]! & 0x0f,
    };
    if (phy.length === 33) fields.cfList = Buffer.from(plain.subarray(13, 29));
    return ok(fields);
  } catch (e) {
    return refuse(`JoinAccept could not be decrypted: ${(e as Error).message}`);
  }
}

/**
 * The LoRaWAN 1.0.x session keys of a join (§6.2.5): NwkSKey = aes128_encrypt(AppKey, 0x01 | AppNonce | NetID |
 * DevNonce | pad16), AppSKey the same with 0x02. Network and device derive the same keys from the same join.
 */
export function deriveSessionKeys(
  appKey: Buffer,
  join: { appNonce: number; netId: string; devNonce: number },
): Result<SessionKeys> {
  const keyProblem = checkKey(appKey, "AppKey");
  if (keyProblem) return refuse(keyProblem);
  if (!Number.isInteger(join.appNonce) || join.appNonce < 0 || join.appNonce > 0xffffff)
    return refuse("appNonce must be 0..16777215");
  if (!Number.isInteger(join.devNonce) || join.devNonce < 0 || join.devNonce > 0xffff)
    return refuse("devNonce must be 0..65535");
  const netId = parseHex(join.netId, 3, "netId");
  if (!netId.ok) return netId;
  try {
    const keys = loraPacket.generateSessionKeys10(
      appKey,
      netId.value,
      uint24(join.appNonce),
      Buffer.from([join.devNonce >> 8, join.devNonce & 0xff]),
    );
    return ok({ nwkSKey: Buffer.from(keys.NwkSKey), appSKey: Buffer.from(keys.AppSKey) });
  } catch (e) {
    return refuse(`session keys could not be derived: ${(e as Error).message}`);
  }
}

/**
 * A JoinRequest PHYPayload as a device sends it (§6.2.4): AppEUI, DevEUI and DevNonce least significant byte first,
 * MIC under the AppKey. For simulated devices and tests; the network server only reads JoinRequests. 23 bytes.
 */
export function buildJoinRequest(request: JoinRequest, appKey: Buffer): Result<Buffer> {
  const keyProblem = checkKey(appKey, "AppKey");
  if (keyProblem) return refuse(keyProblem);
  if (!Number.isInteger(request.devNonce) || request.devNonce < 0 || request.devNonce > 0xffff)
    return refuse("devNonce must be 0..65535");
  const appEui = parseHex(request.appEui, 8, "appEui");
  if (!appEui.ok) return appEui;
  const devEui = parseHex(request.devEui, 8, "devEui");
  if (!devEui.ok) return devEui;
  try {
    const packet = loraPacket.fromFields(
      {
        MType: "Join Request",
        AppEUI: appEui.value,
        DevEUI: devEui.value,
        DevNonce: Buffer.from([request.devNonce >> 8, request.devNonce & 0xff]),
      },
      undefined,
      undefined,
      appKey,
    );
    const phy = packet.getPHYPayload();
    if (phy?.length !== JOIN_REQUEST_BYTES) return refuse("lora-packet built no JoinRequest");
    return ok(Buffer.from(phy));
  } catch (e) {
    return refuse(`JoinRequest could not be built: ${(e as Error).message}`);
  }
}
