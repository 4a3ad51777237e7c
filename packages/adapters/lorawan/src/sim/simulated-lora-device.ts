// A LoRaWAN 1.0.x class A end device in software, for tests, the CLI simulator and the benchmark: it joins by OTAA
// or starts with ABP keys, builds uplinks with its own frame counter (and can replay old frames on purpose), checks
// and decrypts downlinks, and answers the network's MAC commands in its next uplink. Frames go through the package's
// codecs, so the network server and this device share no code paths beyond lora-packet's primitives.
import { createCipheriv, randomInt } from "node:crypto";
import { buildUplink, verifyDownlink } from "../codec/device-frames.js";
import { parseKey, reversed } from "../codec/hex.js";
import { buildJoinRequest, decodeJoinAccept, deriveSessionKeys } from "../codec/join.js";
import { decodeCfList, REGIONS, uplinkDataRate, type CfList, type Region, type RegionName } from "../codec/region.js";
import { ok, refuse, type Result } from "../codec/result.js";
import {
  decodeDownlinkMacCommands,
  encodeUplinkMacCommands,
  type DownlinkMacCommand,
  type UplinkMacCommand,
} from "../mac/mac-commands.js";
import { answerMacCommands, type DeviceMacBehaviour, type DeviceRadioSettings } from "./device-mac-answers.js";

/** How a simulated device is set up: OTAA identity or ABP session, and its radio behaviour. */
export interface SimulatedLoraDeviceOptions {
  /** Default EU868. */
  region?: RegionName;
  /** OTAA: EUIs as 16 hex digits, AppKey as 32. */
  otaa?: { devEui: string; appEui: string; appKey: string };
  /** ABP: DevAddr (8 hex digits), keys (32 hex digits) and the counters to start from (default 0). */
  abp?: { devAddr: string; nwkSKey: string; appSKey: string; fcntUp?: number; fcntDown?: number };
  /** 16: FCntUp counts in 16 bits and wraps (fcntCheck 0 and 2); 32 (default): LoRaWAN 1.0.2+. */
  fcntBits?: 16 | 32;
  /** DevStatusAns battery (default 200) and margin in dB (default 10); LinkADRAns refusals. */
  mac?: Partial<DeviceMacBehaviour>;
  /** Initial uplink DR (default 5 in EU868 and CN470, 3 in US915). */
  dataRate?: number;
  /** Uplink channels in Hz, used round-robin (default the region's first channels). */
  channels?: number[];
  /** Source of DevNonces (default crypto random, never one the device used before). */
  nextDevNonce?: () => number;
}

/** A session as the device holds it after a join or from ABP. */
export interface DeviceSession {
  devAddr: string;
  nwkSKey: Buffer;
  appSKey: Buffer;
  /** The FCntUp of the next uplink. */
  fcntUp: number;
  /** The next FCntDown expected. */
  fcntDown: number;
  /** OTAA only: what the JoinAccept carried. */
  netId?: string;
  appNonce?: number;
  cfList?: CfList;
}

/** What {@link SimulatedLoraDevice.uplink} sends. */
export interface SimulatedUplinkOptions {
  /** Application port 1..223 (default 1 when there is a payload); 0 puts `macCommands` in an FRMPayload. */
  fPort?: number;
  payload?: Buffer | string;
  confirmed?: boolean;
  /** Extra MAC commands for FOpts (after the answers owed to the last downlink), e.g. LinkCheckReq. */
  macCommands?: UplinkMacCommand[];
  adrAckReq?: boolean;
  adr?: boolean;
  /** Sets the ClassB bit (FCtrl bit 4): the device says it listens in its ping slots. */
  classB?: boolean;
  /** Send with this FCntUp instead of the device's counter (the counter still advances past it). */
  fcnt?: number;
}

/** A downlink the device accepted. */
export interface ReceivedDownlink {
  fcnt: number;
  fPort: number | null;
  payload: Buffer;
  confirmed: boolean;
  /** The network acknowledges the device's last confirmed uplink. */
  ack: boolean;
  fPending: boolean;
  macCommands: DownlinkMacCommand[];
  /** MAC bytes that could not be read (unknown CID), as the codec reports them. */
  skippedMac?: string;
  /** The answers queued for the next uplink. */
  answers: UplinkMacCommand[];
}

/** The DR a simulated device starts at: SF7BW125 where the region has it (DR5, DR3 in US915). */
function defaultDr(region: Region): number {
  const dr = uplinkDataRate(region, { modu: "LORA", datr: "SF7BW125" });
  return dr.ok ? dr.value : 0;
}
/** The channels a simulated device sends on: the region's join channels, else the gateways' default plan. */
function defaultChannels(region: Region): number[] {
  return [...(region.defaultChannels.length > 0 ? region.defaultChannels : region.gatewayChannels)];
}

function key(text: string, what: string): Buffer {
  const k = parseKey(text, what);
  if (!k.ok) throw new Error(k.reason);
  return k.value;
}

/** A simulated LoRaWAN 1.0.x class A device. Methods throw only on misuse (bad options, uplink before a join). */
export class SimulatedLoraDevice {
  readonly region: Region;
  /** DevEUI (OTAA), or undefined for ABP. */
  readonly devEui?: string;
  /** The uplinks sent, oldest first (for {@link replay}); the last 64 are kept. */
  readonly sent: Buffer[] = [];
  /** The last LinkCheckAns and DeviceTimeAns received. */
  linkCheck?: { margin: number; gatewayCount: number };
  deviceTime?: { gpsSeconds: number; fraction: number };
  /** The radio settings (data rate, power, RX windows) the network set. */
  settings: DeviceRadioSettings;
  /** Answers owed to the network, sent in the next uplink's FOpts. */
  pendingMacAnswers: UplinkMacCommand[] = [];
  /** A confirmed downlink was received: the next uplink sets ACK. */
  ackPending = false;
  /** The last confirmed uplink was acknowledged by a downlink. */
  lastConfirmedAcked = false;
  private readonly appEui?: string;
  private readonly appKey?: Buffer;
  private readonly fcntBits: 16 | 32;
  private readonly behaviour: DeviceMacBehaviour;
  private readonly channels: number[];
  private readonly nextDevNonce: () => number;
  private readonly usedNonces = new Set<number>();
  private pendingJoinNonce?: number;
  private channelIndex = 0;
  private current?: DeviceSession;
  /** The multicast group session it listens to (joinMulticast). */
  private multicast?: { devAddr: string; nwkSKey: Buffer; appSKey: Buffer; fcntDown: number };

  constructor(options: SimulatedLoraDeviceOptions) {
    const name = options.region ?? "EU868";
    this.region = REGIONS[name];
    if (!this.region) throw new Error(`region ${String(name)} is not supported`);
    if (!options.otaa === !options.abp) throw new Error("give exactly one of otaa and abp");
    this.fcntBits = options.fcntBits ?? 32;
    this.behaviour = { battery: 200, margin: 10, ...options.mac };
    this.channels = options.channels ?? defaultChannels(this.region);
    this.nextDevNonce = options.nextDevNonce ?? (() => randomInt(0x10000));
    this.settings = {
      dataRate: options.dataRate ?? defaultDr(this.region),
      txPower: 0,
      nbTrans: 1,
      rx1DrOffset: 0,
      rx2DataRate: this.region.rx2.dataRate,
      rx2Frequency: this.region.rx2.frequency,
      rxDelay: this.region.receiveDelay1,
      maxDutyCycle: 0,
      extraChannels: {},
    };
    if (options.otaa) {
      this.devEui = options.otaa.devEui.toLowerCase();
      this.appEui = options.otaa.appEui.toLowerCase();
      this.appKey = key(options.otaa.appKey, "appKey");
    } else if (options.abp) {
      const a = options.abp;
      if (!/^[0-9a-fA-F]{8}$/.test(a.devAddr)) throw new Error(`devAddr "${a.devAddr}" must be 8 hex digits`);
      this.current = {
        devAddr: a.devAddr.toLowerCase(),
        nwkSKey: key(a.nwkSKey, "nwkSKey"),
        appSKey: key(a.appSKey, "appSKey"),
        fcntUp: a.fcntUp ?? 0,
        fcntDown: a.fcntDown ?? 0,
      };
    }
  }

  /** Whether the device has a session (ABP from the start, OTAA after a JoinAccept). */
  get joined(): boolean {
    return this.current !== undefined;
  }

  /** The session (a copy), or undefined before an OTAA join. */
  get session(): DeviceSession | undefined {
    return this.current && { ...this.current };
  }

  get devAddr(): string | undefined {
    return this.current?.devAddr;
  }

  /** The FCntUp the next uplink will carry. */
  get fcntUp(): number {
    return this.current?.fcntUp ?? 0;
  }

  /** The next FCntDown the device expects. */
  get fcntDown(): number {
    return this.current?.fcntDown ?? 0;
  }

  /** The RX1 delay in ms for data frames (RX2 opens 1 s later). */
  get rx1DelayMs(): number {
    return Math.max(1, this.settings.rxDelay) * 1000;
  }

  /** When the device listens for a JoinAccept after its JoinRequest: RX1 and RX2, ms (the region's delays). */
  get joinAcceptDelaysMs(): { rx1: number; rx2: number } {
    return { rx1: this.region.joinAcceptDelay1 * 1000, rx2: this.region.joinAcceptDelay2 * 1000 };
  }

  /**
   * A JoinRequest with a fresh DevNonce (never one this device used), or `devNonce` to reuse one on purpose.
   * The device waits for the JoinAccept of this request; a session it had stays until the accept arrives.
   */
  joinRequest(options: { devNonce?: number } = {}): Buffer {
    if (!this.appKey || !this.devEui || !this.appEui) throw new Error("an ABP device does not join");
    let devNonce = options.devNonce;
    for (let tries = 0; devNonce === undefined && tries < 0x20000; tries++) {
      const candidate = this.nextDevNonce();
      if (!this.usedNonces.has(candidate)) devNonce = candidate;
    }
    if (devNonce === undefined) throw new Error("no unused DevNonce left: the device cannot join again");
    const phy = buildJoinRequest({ devEui: this.devEui, appEui: this.appEui, devNonce }, this.appKey);
    if (!phy.ok) throw new Error(phy.reason);
    this.usedNonces.add(devNonce);
    this.pendingJoinNonce = devNonce;
    return phy.value;
  }

  /** The DevNonce of the JoinRequest awaiting its JoinAccept. */
  get pendingDevNonce(): number | undefined {
    return this.pendingJoinNonce;
  }

  /**
   * Takes a JoinAccept for the pending JoinRequest: decrypts it, checks its MIC, derives NwkSKey and AppSKey, and
   * starts the session (counters 0) with the RX settings and CFList it carries. Refused otherwise.
   */
  handleJoinAccept(phy: Uint8Array): Result<DeviceSession> {
    if (!this.appKey) return refuse("an ABP device does not join");
    if (this.pendingJoinNonce === undefined) return refuse("no JoinRequest is waiting for a JoinAccept");
    const fields = decodeJoinAccept(phy, this.appKey);
    if (!fields.ok) return fields;
    const f = fields.value;
    const keys = deriveSessionKeys(this.appKey, { ...f, devNonce: this.pendingJoinNonce });
    if (!keys.ok) return keys;
    const session: DeviceSession = {
      devAddr: f.devAddr,
      ...keys.value,
      fcntUp: 0,
      fcntDown: 0,
      netId: f.netId,
      appNonce: f.appNonce,
    };
    if (f.cfList) {
      const cf = decodeCfList(f.cfList);
      if (cf.ok) session.cfList = cf.value;
    }
    const extraChannels: Record<number, number> = {};
    if (session.cfList?.type === 0) session.cfList.frequencies.forEach((hz, i) => (extraChannels[3 + i] = hz));
    this.pendingJoinNonce = undefined;
    this.current = session;
    const { rx1DrOffset, rx2DataRate, rxDelay } = f;
    this.settings = { ...this.settings, rx1DrOffset, rx2DataRate, rxDelay, extraChannels };
    this.sent.length = 0;
    this.pendingMacAnswers = [];
    this.ackPending = false;
    return ok({ ...session });
  }

  /**
   * The next uplink: FCntUp, then the MAC answers owed (FOpts, or FPort 0 when there is no payload and they
   * exceed 15 bytes), `macCommands`, the ACK of a confirmed downlink. Advances FCntUp (wrapping at 2^16 in 16-bit
   * mode) and clears what it carried.
   */
  uplink(options: SimulatedUplinkOptions = {}): Buffer {
    const s = this.requireSession();
    const mac = encodeUplinkMacCommands([...this.pendingMacAnswers, ...(options.macCommands ?? [])]);
    if (!mac.ok) throw new Error(mac.reason);
    const payload = typeof options.payload === "string" ? Buffer.from(options.payload) : options.payload;
    let fPort = options.fPort ?? (payload && payload.length > 0 ? 1 : undefined);
    let fOpts = mac.value;
    let body = payload;
    if (fPort === 0 || (fOpts.length > 15 && !payload?.length)) {
      fPort = 0;
      body = Buffer.concat([fOpts, payload ?? Buffer.alloc(0)]);
      fOpts = Buffer.alloc(0);
    }
    const fcnt = options.fcnt ?? s.fcntUp;
    const phy = buildUplink({
      devAddr: s.devAddr,
      nwkSKey: s.nwkSKey,
      appSKey: s.appSKey,
      fcnt,
      confirmed: options.confirmed,
      ack: this.ackPending,
      adr: options.adr,
      adrAckReq: options.adrAckReq,
      classB: options.classB,
      fOpts,
      fPort,
      payload: body,
    });
    if (!phy.ok) throw new Error(phy.reason);
    s.fcntUp = this.fcntBits === 16 ? (fcnt + 1) & 0xffff : fcnt + 1;
    this.pendingMacAnswers = [];
    this.ackPending = false;
    if (options.confirmed) this.lastConfirmedAcked = false;
    this.sent.push(phy.value);
    if (this.sent.length > 64) this.sent.shift();
    return phy.value;
  }

  /** The uplink sent `back` frames ago (1 = the last), byte for byte: a retransmission or a replay attack. */
  replay(back = 1): Buffer {
    const frame = this.sent[this.sent.length - back];
    if (!frame) throw new Error(`the device has not sent ${back} uplinks`);
    return frame;
  }

  /** Sets the counters as a restarted device would (ABP without persistent counters: 0). */
  resetFCnt(fcntUp = 0, fcntDown?: number): void {
    const s = this.requireSession();
    s.fcntUp = fcntUp;
    if (fcntDown !== undefined) s.fcntDown = fcntDown;
  }

  /**
   * Takes a downlink: DevAddr, MIC and FCntDown checked and decrypted by the codec, then its MAC commands
   * answered (queued for the next uplink), a confirmed one remembered to ACK, an ACK noted.
   */
  handleDownlink(phy: Uint8Array): Result<ReceivedDownlink> {
    if (!this.current) return refuse("the device has no session");
    const checked = verifyDownlink(phy, this.current);
    if (!checked.ok) return checked;
    const d = checked.value;
    this.current.fcntDown = d.nextFCntDown;
    const decoded = decodeDownlinkMacCommands(d.macCommands);
    const reaction = answerMacCommands(decoded.commands, this.settings, this.region, this.behaviour);
    this.settings = reaction.settings;
    if (reaction.linkCheck) this.linkCheck = reaction.linkCheck;
    if (reaction.deviceTime) this.deviceTime = reaction.deviceTime;
    this.pendingMacAnswers.push(...reaction.answers);
    if (d.frame.confirmed) this.ackPending = true;
    if (d.frame.ack) this.lastConfirmedAcked = true;
    const received: ReceivedDownlink = {
      fcnt: d.fcnt,
      fPort: d.frame.fPort,
      payload: d.payload,
      confirmed: d.frame.confirmed,
      ack: d.frame.ack,
      fPending: d.frame.fPending,
      macCommands: decoded.commands,
      answers: reaction.answers,
    };
    if (decoded.skipped) received.skippedMac = decoded.skipped.reason;
    return ok(received);
  }

  /**
   * Joins a multicast group (as the TS005 McGroupSetupReq or provisioning would set it up): McAddr and the group's
   * session keys, or the McKey it derives them from (TS005: aes128_encrypt(McKey, 0x01 or 0x02 | McAddr LSB first |
   * pad16)), as hex digits, and the next McFCntDown it accepts (default 0).
   */
  joinMulticast(
    group: { mcAddr: string; fcntDown?: number } & ({ mcNwkSKey: string; mcAppSKey: string } | { mcKey: string }),
  ): void {
    const derive = (mcKey: string, prefix: number) => {
      const block = Buffer.concat([
        Buffer.from([prefix]),
        reversed(Buffer.from(group.mcAddr, "hex")),
        Buffer.alloc(11),
      ]);
      return createCipheriv("aes-128-ecb", Buffer.from(mcKey, "hex"), null).setAutoPadding(false).update(block);
    };
    const keys =
      "mcKey" in group
        ? { nwk: ok(derive(group.mcKey, 0x02)), app: ok(derive(group.mcKey, 0x01)) }
        : { nwk: parseKey(group.mcNwkSKey, "McNwkSKey"), app: parseKey(group.mcAppSKey, "McAppSKey") };
    if (!keys.nwk.ok || !keys.app.ok) throw new Error("multicast keys must be 32 hex digits");
    const fcntDown = group.fcntDown ?? 0;
    this.multicast = { devAddr: group.mcAddr, nwkSKey: keys.nwk.value, appSKey: keys.app.value, fcntDown };
  }

  /** Takes a multicast downlink of its group: McAddr, MIC and McFCntDown checked, FRMPayload decrypted. */
  handleMulticastDownlink(phy: Uint8Array): Result<{ fcnt: number; fPort: number | null; payload: Buffer }> {
    if (!this.multicast) return refuse("the device is in no multicast group");
    const checked = verifyDownlink(phy, this.multicast);
    if (!checked.ok) return checked;
    this.multicast.fcntDown = checked.value.nextFCntDown;
    return ok({ fcnt: checked.value.fcnt, fPort: checked.value.frame.fPort, payload: checked.value.payload });
  }

  /** The next uplink's radio: frequency in MHz round-robin over the channels, `datr` of the current data rate. */
  nextRadio(): { freq: number; datr: string } {
    const channels = [...this.channels, ...Object.values(this.settings.extraChannels)];
    const hz = channels[this.channelIndex++ % channels.length]!;
    const rate = this.region.uplinkDataRates[this.settings.dataRate];
    const datr = rate?.modu === "LORA" ? `SF${rate.sf}BW${rate.bwKHz}` : "SF7BW125";
    return { freq: hz / 1e6, datr };
  }

  private requireSession(): DeviceSession {
    if (!this.current) throw new Error("the device has not joined");
    return this.current;
  }
}
