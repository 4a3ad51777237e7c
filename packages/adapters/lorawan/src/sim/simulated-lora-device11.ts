// A LoRaWAN 1.1 class A OTAA end device in software, for tests and the benchmark: it joins with DevNonce as a
// counter and takes only a JoinAccept with OptNeg, a valid JSIntKey MIC and a JoinNonce above the last one, derives
// the four 1.1 session keys, sends RekeyInd in every uplink until the network's RekeyConf, builds uplinks with the
// 1.1 MIC (the TxDr and TxCh it sends at) and encrypted FOpts, and checks downlinks on NFCntDown or AFCntDown. Frames
// go through lora-packet (sim/device-frames11.ts), not the network server's 1.1 codec.
import { buildJoinRequest } from "../codec/join.js";
import { decodeJoinAccept11 } from "../codec/lorawan11-join-accept.js";
import { deriveJoinServerKeys, deriveSessionKeys11, type SessionKeys11 } from "../codec/lorawan11-keys.js";
import { JOIN_REQ_TYPE_JOIN } from "../codec/lorawan11-mic.js";
import { buildRejoinRequest } from "../codec/lorawan11-rejoin.js";
import { uplinkChannelIndex } from "../codec/lorawan11-verify.js";
import { REGIONS, uplinkDataRate, type Region, type RegionName } from "../codec/region.js";
import { ok, refuse, type Result } from "../codec/result.js";
import {
  decodeDownlinkMacCommands,
  encodeUplinkMacCommands,
  type DownlinkMacCommand,
  type UplinkMacCommand,
} from "../mac/mac-commands.js";
import { deviceDownlink11, deviceUplink11 } from "./device-frames11.js";
import { answerMacCommands, type DeviceRadioSettings } from "./device-mac-answers.js";
import type { SimulatedUplinkOptions } from "./simulated-lora-device.js";

/** A 1.1 device's identity: EUIs as 16 hex digits, root keys as 32. */
export interface SimulatedLoraDevice11Options {
  devEui: string;
  joinEui: string;
  appKey: string;
  nwkKey: string;
  /** Default EU868. */
  region?: RegionName;
  /** The DevNonce of its first JoinRequest (default 0; 1.1 devices count up from there). */
  devNonce?: number;
}

/** A 1.1 session as the device holds it. */
export interface DeviceSession11 {
  devAddr: string;
  keys: SessionKeys11;
  fcntUp: number;
  nFCntDown: number;
  aFCntDown: number;
  joinNonce: number;
}

/** A 1.1 downlink the device accepted, its MAC commands read. */
export interface ReceivedDownlink11 {
  fcnt: number;
  counter: "aFCntDown" | "nFCntDown";
  fPort: number | null;
  payload: Buffer;
  confirmed: boolean;
  ack: boolean;
  macCommands: DownlinkMacCommand[];
}

const key = (hex: string, what: string) => {
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`${what} must be 32 hex digits`);
  return Buffer.from(hex, "hex");
};

/** A simulated LoRaWAN 1.1 class A device. Methods throw only on misuse (bad options, uplink before a join). */
export class SimulatedLoraDevice11 {
  readonly region: Region;
  readonly devEui: string;
  /** The radio settings the network set (data rate, RX windows). */
  settings: DeviceRadioSettings;
  /** The radio of the last uplink built: push it with the frame, its MIC covers the channel and data rate. */
  lastRadio: { freq: number; datr: string } = { freq: 868.1, datr: "SF7BW125" };
  /** Sends RekeyInd until the network's RekeyConf comes (1.1 §5.10). */
  rekeyPending = false;
  /** The minor version the network's RekeyConf confirmed. */
  servedMinor?: number;
  deviceTime?: { gpsSeconds: number; fraction: number };
  /** The last ForceRejoinReq received: the test sends the Rejoin-Request it asks for. */
  forcedRejoin?: Extract<DownlinkMacCommand, { type: "ForceRejoinReq" }>;
  private readonly joinEui: string;
  private readonly appKey: Buffer;
  private readonly nwkKey: Buffer;
  private readonly jsIntKey: Buffer;
  private readonly jsEncKey: Buffer;
  private nextDevNonce: number;
  private pendingDevNonce?: number;
  /** The Rejoin-Request waiting for its JoinAccept: its type and RJcount. */
  private pendingRejoin?: { type: 0 | 1 | 2; rjCount: number };
  /** RJcount0 counts this session's type 0/2 Rejoin-Requests, RJcount1 the type 1 ones for good. */
  private rjCount0 = 0;
  private rjCount1 = 0;
  private netId = "";
  private lastJoinNonce = -1;
  private current?: DeviceSession11;
  private answers: UplinkMacCommand[] = [];
  private ackPending = false;
  /** FCnt of the last confirmed downlink (an ACKing uplink's MIC covers it) and of the last confirmed uplink. */
  private confDownFCnt = 0;
  private confUpFCnt = 0;
  private channel = 0;

  constructor(options: SimulatedLoraDevice11Options) {
    this.region = REGIONS[options.region ?? "EU868"];
    if (!this.region) throw new Error(`region ${String(options.region)} is not supported`);
    this.devEui = options.devEui.toLowerCase();
    this.joinEui = options.joinEui.toLowerCase();
    this.appKey = key(options.appKey, "appKey");
    this.nwkKey = key(options.nwkKey, "nwkKey");
    const js = deriveJoinServerKeys(this.nwkKey, this.devEui);
    if (!js.ok) throw new Error(js.reason);
    this.jsIntKey = js.value.jsIntKey;
    this.jsEncKey = js.value.jsEncKey;
    this.nextDevNonce = options.devNonce ?? 0;
    const sf7 = uplinkDataRate(this.region, { modu: "LORA", datr: "SF7BW125" });
    this.settings = {
      dataRate: sf7.ok ? sf7.value : 0,
      txPower: 0,
      nbTrans: 1,
      rx1DrOffset: 0,
      rx2DataRate: this.region.rx2.dataRate,
      rx2Frequency: this.region.rx2.frequency,
      rxDelay: this.region.receiveDelay1,
      maxDutyCycle: 0,
      extraChannels: {},
    };
  }

  get session(): DeviceSession11 | undefined {
    return this.current && { ...this.current };
  }

  get devAddr(): string | undefined {
    return this.current?.devAddr;
  }

  /** A JoinRequest (MIC under the NwkKey) with the next DevNonce, or `devNonce` to send an old one on purpose. */
  joinRequest(options: { devNonce?: number } = {}): Buffer {
    const devNonce = options.devNonce ?? this.nextDevNonce++;
    const phy = buildJoinRequest({ devEui: this.devEui, appEui: this.joinEui, devNonce }, this.nwkKey);
    if (!phy.ok) throw new Error(phy.reason);
    this.pendingDevNonce = devNonce;
    this.pendingRejoin = undefined;
    return phy.value;
  }

  /**
   * A Rejoin-Request of `type`: 0 or 2 from the current session (MIC under its SNwkSIntKey, RJcount0), 1 with the
   * JoinEUI (MIC under the JSIntKey, RJcount1). The session stays until its JoinAccept arrives.
   */
  rejoinRequest(type: 0 | 1 | 2): Buffer {
    const s = this.current;
    if (type !== 1 && !s) throw new Error("a type 0 or 2 Rejoin-Request needs a session");
    const rjCount = type === 1 ? this.rjCount1++ : this.rjCount0++;
    const built =
      type === 1
        ? buildRejoinRequest({ type, joinEui: this.joinEui, devEui: this.devEui, rjCount }, this.jsIntKey)
        : buildRejoinRequest({ type, netId: this.netId, devEui: this.devEui, rjCount }, s!.keys.sNwkSIntKey);
    if (!built.ok) throw new Error(built.reason);
    this.pendingRejoin = { type, rjCount };
    this.pendingDevNonce = undefined;
    return built.value;
  }

  /** Takes the JoinAccept of the pending JoinRequest (1.1 rules) and starts the session; refused otherwise. */
  handleJoinAccept(phy: Uint8Array): Result<DeviceSession11> {
    const rejoin = this.pendingRejoin;
    const devNonce = rejoin ? rejoin.rjCount : this.pendingDevNonce;
    if (devNonce === undefined) return refuse("no JoinRequest or Rejoin-Request is waiting for a JoinAccept");
    const ctx = { joinReqType: rejoin ? rejoin.type : JOIN_REQ_TYPE_JOIN, joinEui: this.joinEui, devNonce };
    const fields = decodeJoinAccept11(phy, ctx, this.jsIntKey, rejoin ? this.jsEncKey : this.nwkKey);
    if (!fields.ok) return fields;
    const f = fields.value;
    if (f.appNonce <= this.lastJoinNonce) return refuse(`JoinNonce ${f.appNonce} is not above ${this.lastJoinNonce}`);
    const keys = deriveSessionKeys11(this.appKey, this.nwkKey, { ...ctx, joinNonce: f.appNonce });
    if (!keys.ok) return keys;
    this.lastJoinNonce = f.appNonce;
    this.pendingDevNonce = undefined;
    this.pendingRejoin = undefined;
    this.rjCount0 = 0;
    this.netId = f.netId;
    const extraChannels: Record<number, number> = {};
    this.region.gatewayChannels.slice(this.region.defaultChannels.length).forEach((hz, i) => {
      if (f.cfList) extraChannels[this.region.defaultChannels.length + i] = hz;
    });
    const { rx1DrOffset, rx2DataRate, rxDelay } = f;
    this.settings = { ...this.settings, rx1DrOffset, rx2DataRate, rxDelay, extraChannels };
    this.current = {
      devAddr: f.devAddr,
      keys: keys.value,
      fcntUp: 0,
      nFCntDown: 0,
      aFCntDown: 0,
      joinNonce: f.appNonce,
    };
    this.rekeyPending = true;
    this.answers = [];
    this.ackPending = false;
    return ok({ ...this.current });
  }

  /**
   * The next uplink (RekeyInd first while the network has not confirmed the keys, then the answers owed and
   * `macCommands`), on the next channel: its radio is in {@link lastRadio}.
   */
  uplink(options: SimulatedUplinkOptions = {}): Buffer {
    const s = this.current;
    if (!s) throw new Error("the device has not joined");
    const rekey: UplinkMacCommand[] = this.rekeyPending ? [{ type: "RekeyInd", minor: 1 }] : [];
    const mac = encodeUplinkMacCommands([...rekey, ...this.answers, ...(options.macCommands ?? [])]);
    if (!mac.ok) throw new Error(mac.reason);
    const payload = typeof options.payload === "string" ? Buffer.from(options.payload) : options.payload;
    let fPort = options.fPort ?? (payload && payload.length > 0 ? 1 : undefined);
    let fOpts = mac.value;
    let body = payload ?? Buffer.alloc(0);
    if (fPort === 0 || (fOpts.length > 15 && body.length === 0)) {
      [fPort, body, fOpts] = [0, fOpts, Buffer.alloc(0)];
    }
    const r = this.region;
    const channels = [
      ...(r.defaultChannels.length > 0 ? r.defaultChannels : r.gatewayChannels),
      ...Object.values(this.settings.extraChannels),
    ];
    const hz = channels[this.channel++ % channels.length]!;
    const rate = this.region.uplinkDataRates[this.settings.dataRate];
    this.lastRadio = { freq: hz / 1e6, datr: rate?.modu === "LORA" ? `SF${rate.sf}BW${rate.bwKHz}` : "SF7BW125" };
    const txCh = uplinkChannelIndex(this.region, hz / 1e6);
    if (!txCh.ok) throw new Error(txCh.reason);
    const fcnt = options.fcnt ?? s.fcntUp;
    const phy = deviceUplink11(
      {
        devAddr: s.devAddr,
        fcnt,
        confirmed: options.confirmed ?? false,
        ack: this.ackPending,
        confFCnt: this.confDownFCnt,
        adr: options.adr ?? false,
        adrAckReq: options.adrAckReq ?? false,
        fOpts,
        fPort,
        payload: body,
        txDr: this.settings.dataRate,
        txCh: txCh.value,
      },
      s.keys,
    );
    s.fcntUp = fcnt + 1;
    if (options.confirmed) this.confUpFCnt = fcnt;
    this.answers = [];
    this.ackPending = false;
    return phy;
  }

  /** Takes a downlink: checked and decrypted on its counter, its MAC commands answered (RekeyConf ends RekeyInd). */
  handleDownlink(phy: Uint8Array): Result<ReceivedDownlink11> {
    const s = this.current;
    if (!s) return refuse("the device has no session");
    const seen = deviceDownlink11(phy, s.devAddr, s.keys, s, this.confUpFCnt);
    if (!seen.ok) return seen;
    const d = seen.value;
    s[d.counter] = d.fcnt + 1;
    const { commands } = decodeDownlinkMacCommands(d.macCommands);
    for (const c of commands) {
      if (c.type === "RekeyConf") {
        this.rekeyPending = false;
        this.servedMinor = c.minor;
      } else if (c.type === "ADRParamSetupReq") this.answers.push({ type: "ADRParamSetupAns" });
      else if (c.type === "RejoinParamSetupReq") this.answers.push({ type: "RejoinParamSetupAns", timeOk: true });
      else if (c.type === "ForceRejoinReq") this.forcedRejoin = c;
    }
    const reaction = answerMacCommands(commands, this.settings, this.region, { battery: 200, margin: 10 });
    this.settings = reaction.settings;
    if (reaction.deviceTime) this.deviceTime = reaction.deviceTime;
    this.answers.push(...reaction.answers);
    if (d.confirmed) {
      this.ackPending = true;
      this.confDownFCnt = d.fcnt;
    }
    return ok({
      fcnt: d.fcnt,
      counter: d.counter,
      fPort: d.fPort,
      payload: d.payload,
      confirmed: d.confirmed,
      ack: d.ack,
      macCommands: commands,
    });
  }
}
