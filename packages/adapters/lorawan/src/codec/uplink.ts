// LoRaWAN 1.0.x data frames (LoRaWAN 1.0.2 §4): parsing, the uplink checks a network server makes before it trusts
// a frame (session by DevAddr, 32-bit FCnt, MIC, the device's fcntCheck policy), FRMPayload decryption, and the
// downlink frames it answers with (ACK, MAC commands, application data). lora-packet computes MICs and ciphers.
import { parseHex, reversed, toHex } from "./hex.js";
import { dataFrameMic, frmPayloadCipher } from "./frame-crypto.js";
import { loraPacket } from "./lora-packet.js";
import { ok, refuse, type Result } from "./result.js";

/** MHDR MType of the four data frames (§4.2.1). */
export const DATA_MTYPE = {
  unconfirmedUp: 2,
  unconfirmedDown: 3,
  confirmedUp: 4,
  confirmedDown: 5,
} as const;

/**
 * The frame-counter policies of `lora.fcntCheck` (the codes of ActorCloud and gotthardp/lorawan-server):
 * 0 strict 16-bit (the device counts in 16 bits and wraps; MIC over the 16-bit value), 1 strict 32-bit (LoRaWAN
 * 1.0.2+: the network infers the upper 16 bits), 2 reset on zero (16-bit, and a restart of the device's counter
 * near 0 is accepted as a reset — ABP devices without persistent counters), 3 disabled (any counter is accepted:
 * no replay protection).
 */
export type FCntCheck = 0 | 1 | 2 | 3;

/** Largest forward jump of FCnt accepted in the strict modes (MAX_FCNT_GAP of LoRaWAN 1.0.0/1.0.1). */
export const MAX_FCNT_GAP = 16_384;

/** A counter below this after a higher one is taken as a device restart in modes 2 and 3 (lorawan-server's default). */
export const MAX_LOST_AFTER_RESET = 10;

/** Shortest data frame: MHDR, DevAddr (4), FCtrl, FCnt (2), MIC (4). */
const MIN_DATA_FRAME_BYTES = 12;

/** A data frame's fields as sent; FRMPayload still encrypted. DevAddr as 8 lower-case hex digits. */
export interface DataFrame {
  mType: 2 | 3 | 4 | 5;
  uplink: boolean;
  /** A confirmed frame asks the other side for an ACK. */
  confirmed: boolean;
  devAddr: string;
  adr: boolean;
  /** Uplink: the device asks for any downlink to know the network still hears it. */
  adrAckReq: boolean;
  /** The frame acknowledges the last confirmed frame received. */
  ack: boolean;
  /** Downlink: more data is waiting at the network. */
  fPending: boolean;
  /** Uplink (FCtrl bit 4, LoRaWAN 1.0.3+): the device is in class B, listening in its ping slots. */
  classB: boolean;
  /** The 16 bits of FCnt the frame carries. */
  fCnt16: number;
  /** MAC commands piggybacked in the header (0..15 bytes, plain text in LoRaWAN 1.0.x). */
  fOpts: Buffer;
  /** 0 for MAC commands in FRMPayload, 1..223 application, 224 test, null when the frame has no FRMPayload. */
  fPort: number | null;
  frmPayload: Buffer;
  mic: Buffer;
}

/**
 * Reads a data frame's header, port and payload without keys, refusing what is not a well-formed LoRaWAN R1 data
 * frame: another MType or major version, a frame shorter than 12 bytes or shorter than its FOptsLen says, or
 * FPort 0 together with FOpts (MAC commands in both places, which §4.3.1.6 forbids).
 */
export function parseDataFrame(phy: Uint8Array): Result<DataFrame> {
  if (phy.length < MIN_DATA_FRAME_BYTES)
    return refuse(`a data frame is at least ${MIN_DATA_FRAME_BYTES} bytes, got ${phy.length}`);
  const mType = phy[0]! >> 5;
  if (mType < 2 || mType > 5) return refuse(`MType ${mType} is not a data frame (2..5)`);
  if ((phy[0]! & 0x03) !== 0) return refuse(`major version ${phy[0]! & 0x03} is not LoRaWAN R1 (0)`);
  const fCtrl = phy[5]!;
  const fOptsLen = fCtrl & 0x0f;
  const macEnd = phy.length - 4;
  const fhdrEnd = 8 + fOptsLen;
  if (fhdrEnd > macEnd) return refuse(`FOptsLen ${fOptsLen} runs past the end of the ${phy.length}-byte frame`);
  const fPort = fhdrEnd < macEnd ? phy[fhdrEnd]! : null;
  if (fPort === 0 && fOptsLen > 0) return refuse("FPort 0 with FOpts: MAC commands in both places are forbidden");
  const uplink = mType % 2 === 0;
  return ok({
    mType: mType as DataFrame["mType"],
    uplink,
    confirmed: mType >= 4,
    devAddr: toHex(reversed(phy.subarray(1, 5))),
    adr: (fCtrl & 0x80) !== 0,
    adrAckReq: uplink && (fCtrl & 0x40) !== 0,
    ack: (fCtrl & 0x20) !== 0,
    fPending: !uplink && (fCtrl & 0x10) !== 0,
    classB: uplink && (fCtrl & 0x10) !== 0,
    fCnt16: phy[6]! | (phy[7]! << 8),
    fOpts: Buffer.from(phy.subarray(8, fhdrEnd)),
    fPort,
    frmPayload: Buffer.from(phy.subarray(fPort === null ? fhdrEnd : fhdrEnd + 1, macEnd)),
    mic: Buffer.from(phy.subarray(macEnd)),
  });
}

/** What the network keeps of a device's session to check its uplinks. */
export interface UplinkSession {
  devAddr: string;
  nwkSKey: Buffer;
  appSKey: Buffer;
  /** The next uplink FCnt expected (32 bits): 0 after a join or for a new ABP device, last accepted + 1 after. */
  fcntUp: number;
  fcntCheck: FCntCheck;
}

/** Options of {@link verifyUplink}; defaults are the constants of this module. */
export interface UplinkOptions {
  maxFCntGap?: number;
  maxLostAfterReset?: number;
}

/** Accepted: a new uplink to deliver. Counters to store: `nextFCntUp`; on `reset` the device restarted. */
export interface AcceptedUplink<S> {
  kind: "accepted";
  session: S;
  frame: DataFrame;
  /** The frame counter as the device counts it (16-bit in modes 0 and 2). */
  fcnt: number;
  /** The session's new `fcntUp`: keep it before acting on the frame, so a restart never accepts it twice. */
  nextFCntUp: number;
  /** Uplinks the device sent that the network did not hear (the FCnt gap). */
  missed: number;
  /** The device's counter went back to near 0 (modes 2 and 3): reset its downlink counter too (ABP). */
  reset: boolean;
  /** The decrypted FRMPayload of an application port (FPort ≥ 1); empty otherwise. */
  payload: Buffer;
  /** MAC commands: FOpts, or the decrypted FRMPayload of FPort 0. */
  macCommands: Buffer;
}

/** The same frame again (FCnt = last accepted): not delivered twice; a confirmed one is ACKed again. */
export interface RetransmittedUplink<S> {
  kind: "retransmission";
  session: S;
  frame: DataFrame;
  fcnt: number;
}

/** An authentic frame whose counter the policy refuses: a replay, a jump beyond MAX_FCNT_GAP, or no counter left. */
export interface RefusedUplink<S> {
  kind: "refused";
  cause: "replay" | "gap" | "exhausted";
  session: S;
  frame: DataFrame;
  fcnt: number;
  reason: string;
}

/** The verdict on an uplink whose MIC matched one of the sessions of its DevAddr. */
export type UplinkVerdict<S> = AcceptedUplink<S> | RetransmittedUplink<S> | RefusedUplink<S>;

/** The two upper bytes of a 32-bit FCnt as lora-packet wants them for the MIC block and the cipher (LSB first). */
const msbBytes = (fcnt: number) => Buffer.from([(fcnt >>> 16) & 0xff, (fcnt >>> 24) & 0xff]);

/** The frame without its MIC, and its MIC: what the MIC check reads. */
interface Packet {
  body: Buffer;
  mic: Buffer;
}

function micMatches(packet: Packet, nwkSKey: Buffer, fcnt: number): boolean {
  return dataFrameMic(nwkSKey, packet.body, false, fcnt).equals(packet.mic);
}

/**
 * The 32-bit counter whose MIC matched (`matches`), trying the policy's interpretations of the 16 bits in order:
 * shared with the LoRaWAN 1.1 uplink check, whose MIC differs.
 */
export function authenticateFCnt(
  s: Pick<UplinkSession, "fcntUp" | "fcntCheck">,
  f: number,
  matches: (fcnt: number) => boolean,
): number | undefined {
  const ahead = s.fcntUp + ((f - s.fcntUp) & 0xffff);
  const behind = ahead - 0x10000;
  const candidates =
    s.fcntCheck === 0 || s.fcntCheck === 2 ? [f] : s.fcntCheck === 1 ? [ahead, behind] : [ahead, f, behind];
  for (const c of candidates) if (c >= 0 && c <= 0xffffffff && matches(c)) return c;
  return undefined;
}

/** The verdict of the fcntCheck policy on an authenticated frame's full counter (without its contents). */
export function judge<S extends UplinkSession>(
  session: S,
  frame: DataFrame,
  full: number,
  options: Required<UplinkOptions>,
): Omit<AcceptedUplink<S>, "payload" | "macCommands"> | RetransmittedUplink<S> | RefusedUplink<S> {
  const next = session.fcntUp;
  const sixteen = session.fcntCheck === 0 || session.fcntCheck === 2;
  const fcnt = sixteen ? full & 0xffff : full;
  const base = { session, frame, fcnt };
  const accept = (nextFCntUp: number, missed: number, reset: boolean) =>
    ({ kind: "accepted", ...base, nextFCntUp, missed, reset }) as const;
  if (session.fcntCheck === 3) {
    const backwards = next > 0 && full < next - 1;
    return accept(full + 1, backwards ? 0 : Math.max(0, full - next), backwards);
  }
  // Modes 0 and 2 compare in 16 bits (the device wraps there); mode 1 in 32 bits.
  const gap = sixteen ? (full - next) & 0xffff : full - next;
  if (next > 0 && gap === (sixteen ? 0xffff : -1)) return { kind: "retransmission", ...base };
  if (gap >= 0 && gap < options.maxFCntGap) {
    const position = next + gap;
    if (position >= 0xffffffff)
      return { kind: "refused", cause: "exhausted", ...base, reason: "the 32-bit uplink counter is used up: rejoin" };
    return accept(position + 1, gap, false);
  }
  if (session.fcntCheck === 2 && fcnt < options.maxLostAfterReset) return accept(fcnt + 1, fcnt, true);
  const behind = sixteen ? (next - 1 - fcnt) & 0xffff : next - 1 - fcnt;
  if (behind > 0 && (!sixteen || behind < 0x8000))
    return { kind: "refused", cause: "replay", ...base, reason: `FCnt ${fcnt} is behind the expected ${next}: replay` };
  return {
    kind: "refused",
    cause: "gap",
    ...base,
    reason: `FCnt ${fcnt} jumps ${gap} past the expected ${next}, beyond ${options.maxFCntGap}`,
  };
}

/**
 * Checks an uplink data frame against the sessions of its DevAddr (several devices may share one): the session
 * whose NwkSKey gives the MIC, the 32-bit FCnt inferred from the 16 bits sent, and the session's fcntCheck policy
 * (see {@link FCntCheck}); an accepted frame's FRMPayload is decrypted (AppSKey for FPort ≥ 1, NwkSKey for
 * FPort 0). Malformed frames, downlinks, unknown DevAddrs and MIC mismatches are refused with the reason; frames
 * that authenticate get a verdict. Pure: the caller stores `nextFCntUp` of an accepted verdict.
 */
export function verifyUplink<S extends UplinkSession>(
  phy: Uint8Array,
  sessionsOf: (devAddr: string) => readonly S[],
  options: UplinkOptions = {},
): Result<UplinkVerdict<S>> {
  const parsed = parseDataFrame(phy);
  if (!parsed.ok) return parsed;
  const frame = parsed.value;
  if (!frame.uplink) return refuse(`MType ${frame.mType} is a downlink, not an uplink`);
  const sessions = sessionsOf(frame.devAddr);
  if (sessions.length === 0) return refuse(`no session has DevAddr ${frame.devAddr}`);
  const opts = { maxFCntGap: MAX_FCNT_GAP, maxLostAfterReset: MAX_LOST_AFTER_RESET, ...options };
  try {
    const bytes = Buffer.from(phy.buffer, phy.byteOffset, phy.byteLength);
    const packet: Packet = { body: bytes.subarray(0, bytes.length - 4), mic: bytes.subarray(bytes.length - 4) };
    for (const session of sessions) {
      if (![0, 1, 2, 3].includes(session.fcntCheck))
        return refuse(`fcntCheck ${String(session.fcntCheck)} of DevAddr ${frame.devAddr} must be 0, 1, 2 or 3`);
      if (session.nwkSKey?.length !== 16 || session.appSKey?.length !== 16)
        return refuse(`the session keys of DevAddr ${frame.devAddr} must be 16 bytes`);
      if (!Number.isInteger(session.fcntUp) || session.fcntUp < 0 || session.fcntUp > 0xffffffff)
        return refuse(`fcntUp ${session.fcntUp} of DevAddr ${frame.devAddr} must be 0..4294967295`);
      const full = authenticateFCnt(session, frame.fCnt16, (c) => micMatches(packet, session.nwkSKey, c));
      if (full === undefined) continue;
      const verdict = judge(session, frame, full, opts);
      if (verdict.kind !== "accepted") return ok(verdict);
      let plain = Buffer.alloc(0);
      if (frame.frmPayload.length > 0)
        plain = frmPayloadCipher(
          frame.fPort === 0 ? session.nwkSKey : session.appSKey,
          frame.frmPayload,
          false,
          bytes.subarray(1, 5),
          full,
        );
      return ok({
        ...verdict,
        payload: frame.fPort === 0 ? Buffer.alloc(0) : plain,
        macCommands: frame.fPort === 0 ? plain : frame.fOpts,
      });
    }
  } catch (e) {
    return refuse(`uplink from ${frame.devAddr} could not be checked: ${(e as Error).message}`);
  }
  const n = sessions.length;
  return refuse(`MIC does not match the ${n === 1 ? "session" : `${n} sessions`} of DevAddr ${frame.devAddr}`);
}

/** A downlink data frame to build. */
export interface DownlinkFrame {
  devAddr: string;
  nwkSKey: Buffer;
  appSKey: Buffer;
  /** The 32-bit FCntDown to use (the session's next downlink counter). */
  fcntDown: number;
  /** Ask the device to acknowledge (Confirmed Data Down). */
  confirmed?: boolean;
  /** Acknowledge the device's confirmed uplink. */
  ack?: boolean;
  adr?: boolean;
  /** More downlinks are queued. */
  fPending?: boolean;
  /** MAC commands in the header, 0..15 bytes. */
  fOpts?: Buffer;
  /** Port of the payload: 0 for MAC commands, 1..223 for the application; omit for an empty ACK. */
  fPort?: number;
  payload?: Buffer;
}

/** A built downlink and the counter to keep for the next one. */
export interface BuiltDownlink {
  phy: Buffer;
  fcntDown: number;
  nextFCntDown: number;
}

/** The members of a data frame in either direction, as the builders below take them. */
interface DataFrameFields {
  mType: "Unconfirmed Data Up" | "Confirmed Data Up" | "Unconfirmed Data Down" | "Confirmed Data Down";
  devAddr: string;
  nwkSKey: Buffer;
  appSKey: Buffer;
  /** The 32-bit frame counter; the frame carries its low 16 bits, the MIC covers all 32. */
  fcnt: number;
  /** Highest counter this direction may use (a downlink never uses 2^32 − 1, so the next one exists). */
  maxFcnt: number;
  /** The caller's name of the counter, for the refusal. */
  fcntName: "fcnt" | "fcntDown";
  fCtrl: { ACK: boolean; ADR: boolean; ADRACKReq?: boolean; FPending?: boolean };
  fOpts?: Buffer;
  fPort?: number;
  payload?: Buffer;
}

function dataFrameProblem(f: DataFrameFields): string | undefined {
  if (f.nwkSKey?.length !== 16 || f.appSKey?.length !== 16) return "the session keys must be 16 bytes";
  if (!Number.isInteger(f.fcnt) || f.fcnt < 0 || f.fcnt > f.maxFcnt)
    return `${f.fcntName} ${f.fcnt} must be 0..${f.maxFcnt}`;
  const fOpts = f.fOpts ?? Buffer.alloc(0);
  if (fOpts.length > 15) return `FOpts of ${fOpts.length} bytes exceed the 15 the header holds`;
  const payload = f.payload ?? Buffer.alloc(0);
  if (f.fPort === undefined) return payload.length > 0 ? "a payload needs an FPort" : undefined;
  if (!Number.isInteger(f.fPort) || f.fPort < 0 || f.fPort > 255) return `FPort ${f.fPort} must be 0..255`;
  if (f.fPort === 0 && fOpts.length > 0) return "FPort 0 with FOpts: MAC commands in both places are forbidden";
  if (payload.length > 242) return `a payload of ${payload.length} bytes exceeds any data rate's 242`;
  return undefined;
}

/**
 * A data frame PHYPayload in either direction (§4): FRMPayload encrypted (NwkSKey for FPort 0, AppSKey otherwise),
 * the MIC under the NwkSKey over the full 32-bit counter. Shared by the network's downlinks and the device side's
 * uplinks (device-frames.ts), so both directions are built by one piece of code.
 */
export function buildDataFrame(f: DataFrameFields): Result<Buffer> {
  const problem = dataFrameProblem(f);
  if (problem) return refuse(problem);
  const devAddr = parseHex(f.devAddr, 4, "devAddr");
  if (!devAddr.ok) return devAddr;
  const msb = msbBytes(f.fcnt);
  try {
    const packet = loraPacket.fromFields(
      {
        MType: f.mType,
        DevAddr: devAddr.value,
        FCtrl: f.fCtrl,
        FCnt: Buffer.from([(f.fcnt >> 8) & 0xff, f.fcnt & 0xff]),
        FOpts: f.fOpts ?? Buffer.alloc(0),
        FPort: f.fPort,
        payload: f.payload ?? Buffer.alloc(0),
      },
      f.appSKey,
      f.nwkSKey,
      undefined,
      msb,
    );
    // lora-packet computes the MIC only for frames with an FPort; set it for all (an empty ACK has none).
    loraPacket.recalculateMIC(packet, f.nwkSKey, undefined, msb);
    const phy = packet.getPHYPayload();
    return phy ? ok(Buffer.from(phy)) : refuse("lora-packet built no frame");
  } catch (e) {
    return refuse(`${f.mType} frame could not be built: ${(e as Error).message}`);
  }
}

/**
 * A downlink data frame (§4): FRMPayload encrypted (NwkSKey for FPort 0, AppSKey otherwise) and the MIC under the
 * NwkSKey over the full 32-bit FCntDown. An empty ACK is a frame with `ack` and no port. Refused when the fields
 * do not make a LoRaWAN frame; whether it fits the data rate is the region's `planDownlink` check.
 */
export function buildDownlink(d: DownlinkFrame): Result<BuiltDownlink> {
  const phy = buildDataFrame({
    ...d,
    mType: d.confirmed ? "Confirmed Data Down" : "Unconfirmed Data Down",
    fcnt: d.fcntDown,
    maxFcnt: 0xfffffffe,
    fcntName: "fcntDown",
    fCtrl: { ACK: d.ack ?? false, ADR: d.adr ?? false, FPending: d.fPending ?? false },
  });
  return phy.ok ? ok({ phy: phy.value, fcntDown: d.fcntDown, nextFCntDown: d.fcntDown + 1 }) : phy;
}
