// The device's side of LoRaWAN 1.0.x data frames (LoRaWAN 1.0.2 §4): the uplinks a device builds and the checks it
// makes on a downlink (address, MIC over the 32-bit FCntDown, counter ahead of the last one, decryption). The network
// server never calls these; simulated devices and tests do, so the server's codec is checked against a second side.
import { loraPacket } from "./lora-packet.js";
import { ok, refuse, type Result } from "./result.js";
import { MAX_FCNT_GAP, buildDataFrame, parseDataFrame, type DataFrame } from "./uplink.js";

/** An uplink data frame to build, as a device would. */
export interface UplinkFrame {
  devAddr: string;
  nwkSKey: Buffer;
  appSKey: Buffer;
  /** The FCntUp (32 bits); the frame carries its low 16 bits, the MIC covers all 32. */
  fcnt: number;
  /** Confirmed Data Up: the network is to ACK it. */
  confirmed?: boolean;
  /** Acknowledges the last confirmed downlink. */
  ack?: boolean;
  adr?: boolean;
  adrAckReq?: boolean;
  /** The ClassB bit (FCtrl bit 4 of an uplink, the downlinks' FPending): the device listens in its ping slots. */
  classB?: boolean;
  /** MAC commands in the header, 0..15 bytes. */
  fOpts?: Buffer;
  /** 0 for MAC commands in FRMPayload, 1..223 application; omit for a frame without FRMPayload. */
  fPort?: number;
  payload?: Buffer;
}

const msbBytes = (fcnt: number) => Buffer.from([(fcnt >>> 16) & 0xff, (fcnt >>> 24) & 0xff]);

/**
 * An uplink data frame PHYPayload: FRMPayload encrypted (NwkSKey for FPort 0, AppSKey otherwise), MIC under the
 * NwkSKey over the 32-bit FCnt. Refused when the fields do not make a LoRaWAN frame.
 */
export function buildUplink(u: UplinkFrame): Result<Buffer> {
  return buildDataFrame({
    ...u,
    mType: u.confirmed ? "Confirmed Data Up" : "Unconfirmed Data Up",
    maxFcnt: 0xffffffff,
    fcntName: "fcnt",
    fCtrl: { ACK: u.ack ?? false, ADR: u.adr ?? false, ADRACKReq: u.adrAckReq ?? false, FPending: u.classB ?? false },
  });
}

/** What a device keeps to check downlinks. */
export interface DownlinkSession {
  devAddr: string;
  nwkSKey: Buffer;
  appSKey: Buffer;
  /** The next FCntDown expected (32 bits): 0 after a join, last accepted + 1 after. */
  fcntDown: number;
}

/** A downlink the device accepts: the frame, its 32-bit counter, the counter to keep, and the decrypted contents. */
export interface AcceptedDownlink {
  frame: DataFrame;
  fcnt: number;
  nextFCntDown: number;
  /** Decrypted FRMPayload of an application port (FPort ≥ 1); empty otherwise. */
  payload: Buffer;
  /** MAC commands: FOpts, or the decrypted FRMPayload of FPort 0. */
  macCommands: Buffer;
}

/**
 * Checks a downlink as a class A device does: a downlink data frame for its DevAddr, MIC under the NwkSKey with
 * the 32-bit FCntDown inferred from the 16 bits sent (ahead of the expected one by less than MAX_FCNT_GAP), then
 * decrypts it. A counter behind the expected one is a replay and refused.
 */
export function verifyDownlink(phy: Uint8Array, session: DownlinkSession): Result<AcceptedDownlink> {
  const parsed = parseDataFrame(phy);
  if (!parsed.ok) return parsed;
  const frame = parsed.value;
  if (frame.uplink) return refuse(`MType ${frame.mType} is an uplink, not a downlink`);
  if (frame.devAddr !== session.devAddr.toLowerCase())
    return refuse(`DevAddr ${frame.devAddr} is not the device's ${session.devAddr}`);
  if (session.nwkSKey?.length !== 16 || session.appSKey?.length !== 16)
    return refuse("the session keys must be 16 bytes");
  const next = session.fcntDown;
  const gap = (frame.fCnt16 - next) & 0xffff;
  const full = next + gap;
  try {
    const packet = loraPacket.fromWire(Buffer.from(phy));
    if (!loraPacket.verifyMIC(packet, session.nwkSKey, undefined, msbBytes(full))) {
      const back = full - 0x10000;
      if (back >= 0 && loraPacket.verifyMIC(packet, session.nwkSKey, undefined, msbBytes(back)))
        return refuse(`FCntDown ${back} is behind the expected ${next}: replay`);
      return refuse("downlink MIC does not match the NwkSKey");
    }
    if (gap >= MAX_FCNT_GAP)
      return refuse(`FCntDown ${frame.fCnt16} is behind the expected ${next} or too far ahead: replay or gap`);
    let plain = Buffer.alloc(0);
    if (frame.frmPayload.length > 0)
      plain = Buffer.from(loraPacket.decrypt(packet, session.appSKey, session.nwkSKey, msbBytes(full)));
    return ok({
      frame,
      fcnt: full,
      nextFCntDown: full + 1,
      payload: frame.fPort === 0 ? Buffer.alloc(0) : plain,
      macCommands: frame.fPort === 0 ? plain : frame.fOpts,
    });
  } catch (e) {
    return refuse(`downlink to ${frame.devAddr} could not be checked: ${(e as Error).message}`);
  }
}
