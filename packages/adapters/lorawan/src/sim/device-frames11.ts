// The device's side of LoRaWAN 1.1 data frames, built and checked with lora-packet rather than the network
// server's codec (codec/lorawan11-*.ts), so a simulated 1.1 device and the server meet only on the air: the uplink's
// FOpts encrypted under the NwkSEncKey and its two-half MIC (FNwkSIntKey; SNwkSIntKey with ConfFCnt, TxDr, TxCh),
// and a downlink's MIC (SNwkSIntKey with ConfFCnt), FOpts and payload checked on NFCntDown or AFCntDown.
import type { SessionKeys11 } from "../codec/lorawan11-keys.js";
import { loraPacket } from "../codec/lora-packet.js";
import { ok, refuse, type Result } from "../codec/result.js";

/** The upper 16 bits of a 32-bit frame counter as lora-packet takes them (least significant byte first). */
const msb = (fcnt: number) => Buffer.from([(fcnt >>> 16) & 0xff, (fcnt >>> 24) & 0xff]);
/**
 * The 1.1 MIC's context as lora-packet takes it: for an uplink ConfFCnt most significant byte first (it swaps them
 * into B1), then TxDr and TxCh; for a downlink ConfFCnt alone, least significant byte first (copied into B0).
 */
const upContext = (confFCnt: number, txDr: number, txCh: number) =>
  Buffer.from([(confFCnt >> 8) & 0xff, confFCnt & 0xff, txDr, txCh]);
const downContext = (confFCnt: number) => Buffer.from([confFCnt & 0xff, (confFCnt >> 8) & 0xff]);
const be16 = (n: number) => Buffer.from([(n >> 8) & 0xff, n & 0xff]);

/** A 1.1 uplink to build. */
export interface Uplink11 {
  devAddr: string;
  fcnt: number;
  confirmed: boolean;
  /** Acknowledges the confirmed downlink whose FCnt is `confFCnt`. */
  ack: boolean;
  confFCnt: number;
  adr: boolean;
  adrAckReq: boolean;
  /** Plain MAC commands (≤ 15 bytes). */
  fOpts: Buffer;
  /** undefined: no FRMPayload; 0: `payload` holds MAC commands. */
  fPort: number | undefined;
  payload: Buffer;
  txDr: number;
  txCh: number;
}

/** The PHYPayload of a 1.1 uplink as a device sends it. */
export function deviceUplink11(u: Uplink11, keys: SessionKeys11): Buffer {
  const packet = loraPacket.fromFields(
    {
      MType: u.confirmed ? "Confirmed Data Up" : "Unconfirmed Data Up",
      DevAddr: Buffer.from(u.devAddr, "hex"),
      FCnt: be16(u.fcnt & 0xffff),
      FCtrl: { ACK: u.ack, ADR: u.adr, ADRACKReq: u.adrAckReq },
      FOpts: u.fOpts,
      // lora-packet builds a frame without FPort from an empty payload and no FPort.
      ...(u.fPort === undefined ? { payload: Buffer.alloc(0) } : { FPort: u.fPort, payload: u.payload }),
    },
    keys.appSKey,
    keys.nwkSEncKey,
    undefined,
    msb(u.fcnt),
  );
  if (u.fOpts.length > 0) packet.encryptFOpts(keys.nwkSEncKey, undefined, msb(u.fcnt));
  const context = upContext(u.ack ? u.confFCnt : 0, u.txDr, u.txCh);
  loraPacket.recalculateMIC(packet, keys.fNwkSIntKey, keys.sNwkSIntKey, msb(u.fcnt), context);
  return Buffer.from(packet.getPHYPayload()!);
}

/** A 1.1 downlink the device accepted. */
export interface Downlink11Seen {
  fcnt: number;
  counter: "aFCntDown" | "nFCntDown";
  confirmed: boolean;
  ack: boolean;
  fPending: boolean;
  fPort: number | null;
  payload: Buffer;
  /** Plain MAC commands from FOpts or an FPort 0 payload. */
  macCommands: Buffer;
}

/**
 * Checks a downlink for the device at `devAddr`: the counter its FPort says (AFCntDown for FPort > 0), its 32 bits
 * taken as at or after the next expected one, the MIC under the SNwkSIntKey with `confFCnt` (the FCnt of the
 * device's last confirmed uplink), then FOpts and payload decrypted.
 */
export function deviceDownlink11(
  phy: Uint8Array,
  devAddr: string,
  keys: SessionKeys11,
  next: { aFCntDown: number; nFCntDown: number },
  confFCnt: number,
): Result<Downlink11Seen> {
  let packet;
  try {
    packet = loraPacket.fromWire(Buffer.from(phy));
  } catch (e) {
    return refuse(`not a LoRaWAN frame: ${(e as Error).message}`);
  }
  if (packet.getDir() !== "down" || !packet.isDataMessage()) return refuse("not a data downlink");
  if (Buffer.from(packet.DevAddr!).toString("hex") !== devAddr) return refuse("another device's DevAddr");
  const fPort = packet.FPort === undefined || packet.FPort === null ? null : packet.getFPort();
  const counter = fPort !== null && fPort > 0 ? "aFCntDown" : "nFCntDown";
  const expected = next[counter];
  const fcnt = expected + ((packet.getFCnt()! - expected) & 0xffff);
  const ack = packet.getFCtrlACK() ?? false;
  if (!loraPacket.verifyMIC(packet, undefined, keys.sNwkSIntKey, msb(fcnt), downContext(ack ? confFCnt : 0)))
    return refuse(`MIC does not match at ${counter} ${fcnt}`);
  let payload = Buffer.alloc(0);
  if (fPort !== null && packet.FRMPayload && packet.FRMPayload.length > 0)
    payload = Buffer.from(loraPacket.decrypt(packet, keys.appSKey, keys.nwkSEncKey, msb(fcnt)));
  const fOpts =
    packet.FOpts && packet.FOpts.length > 0
      ? Buffer.from(packet.decryptFOpts(keys.nwkSEncKey, undefined, msb(fcnt)))
      : Buffer.alloc(0);
  return ok({
    fcnt,
    counter,
    confirmed: packet.isConfirmed(),
    ack,
    fPending: packet.getFCtrlFPending() ?? false,
    fPort,
    payload: fPort === 0 ? Buffer.alloc(0) : payload,
    macCommands: fPort === 0 ? payload : fOpts,
  });
}
