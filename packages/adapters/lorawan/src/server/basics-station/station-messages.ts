// The LNS protocol's station-to-server messages (Basics Station docs, "The LNS Protocol": version, jreq, updf,
// propdf, dntxed, timesync): checked member by member, and the radio frame rebuilt from a jreq's or updf's fields
// so that the frame goes through the same dedup, MIC check and handling as a packet forwarder's rxpk.
import { ok, refuse, type Result } from "../../codec/result.js";
import type { RxPacket } from "../../codec/radio-packet.js";
import { datrOf, type Region } from "../../codec/region.js";
import type { StationUpinfo } from "../server-context.js";
import { parseEui, wide, type StationObject } from "./station-json.js";

/** A station message the server acts on. */
export type StationMessage =
  | { msgtype: "version"; station: string; model: string; protocol: number; features: string }
  | { msgtype: "uplink"; kind: "jreq" | "updf" | "propdf"; phyPayload: Buffer; rx: RxPacket; upinfo: StationUpinfo }
  | { msgtype: "dntxed"; diid: bigint; devEui?: string; xtime?: bigint; gpstime?: bigint }
  | { msgtype: "timesync"; txtime: bigint }
  /** A message type the server has no use for (router_config echoes, rmtsh answers, future types): ignored. */
  | { msgtype: "other"; type: string };

const int = (o: Record<string, unknown>, k: string, min: number, max: number): number | undefined => {
  const v = o[k];
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? v : undefined;
};
const hex = (o: Record<string, unknown>, k: string): Buffer | undefined => {
  const v = o[k];
  return typeof v === "string" && /^([0-9a-fA-F]{2})*$/.test(v) ? Buffer.from(v, "hex") : undefined;
};
const INT32: [number, number] = [-(2 ** 31), 2 ** 32 - 1];

/** The radio metadata (DR, Freq, upinfo) every uplink message carries, in the packet forwarder's terms. */
function radio(o: StationObject, region: Region, data: Buffer): Result<{ rx: RxPacket; upinfo: StationUpinfo }> {
  const dr = int(o, "DR", 0, 15);
  const freq = int(o, "Freq", 1, 2 ** 32);
  const up = o.upinfo;
  if (dr === undefined || freq === undefined) return refuse("DR or Freq missing or out of range");
  if (typeof up !== "object" || up === null) return refuse("upinfo missing");
  const u = up as Record<string, unknown>;
  const xtime = wide(u, "xtime");
  const rctx = wide(u, "rctx") ?? 0n;
  const gpstime = wide(u, "gpstime") ?? 0n;
  if (xtime === undefined || typeof u.rssi !== "number" || typeof u.snr !== "number")
    return refuse("upinfo needs xtime, rssi and snr");
  const rate = datrOf(region, dr, true);
  if (!rate.ok) return rate;
  const rx: RxPacket = {
    tmst: Number(xtime & 0xffff_ffffn),
    freq: freq / 1e6,
    stat: 1,
    modu: rate.value.modu,
    datr: rate.value.datr,
    rssi: u.rssi,
    lsnr: u.snr,
    size: data.length,
    data,
  };
  if (rate.value.modu === "LORA") rx.codr = "4/5";
  return ok({ rx, upinfo: { xtime, rctx, gpstime } });
}

/** jreq: MHDR | JoinEUI | DevEUI | DevNonce | MIC, the EUIs and numbers little-endian (LoRaWAN 1.0.2 §6.2.4). */
function joinRequest(o: StationObject): Result<Buffer> {
  const mhdr = int(o, "MHdr", 0, 255);
  const joinEui = parseEui(o.JoinEui ?? o.JoinEUI);
  const devEui = parseEui(o.DevEui ?? o.DevEUI);
  const nonce = int(o, "DevNonce", 0, 0xffff);
  const mic = int(o, "MIC", ...INT32);
  if (mhdr === undefined || !joinEui.ok || !devEui.ok || nonce === undefined || mic === undefined)
    return refuse("jreq needs MHdr, JoinEui, DevEui, DevNonce and MIC");
  const b = Buffer.alloc(23);
  b[0] = mhdr;
  Buffer.from(joinEui.value, "hex").reverse().copy(b, 1);
  Buffer.from(devEui.value, "hex").reverse().copy(b, 9);
  b.writeUInt16LE(nonce, 17);
  b.writeUInt32LE(mic >>> 0, 19);
  return ok(b);
}

/** updf: MHDR | DevAddr | FCtrl | FCnt | FOpts | [FPort | FRMPayload] | MIC (LoRaWAN 1.0.2 §4). */
function dataFrame(o: StationObject): Result<Buffer> {
  const mhdr = int(o, "MHdr", 0, 255);
  const devAddr = int(o, "DevAddr", ...INT32);
  const fctrl = int(o, "FCtrl", 0, 255);
  const fcnt = int(o, "FCnt", 0, 0xffff_ffff);
  const fopts = hex(o, "FOpts");
  const fport = int(o, "FPort", -1, 255);
  const payload = hex(o, "FRMPayload");
  const mic = int(o, "MIC", ...INT32);
  if ([mhdr, devAddr, fctrl, fcnt, fport, mic].includes(undefined) || !fopts || !payload)
    return refuse("updf needs MHdr, DevAddr, FCtrl, FCnt, FOpts, FPort, FRMPayload and MIC");
  if (fopts.length !== (fctrl! & 0x0f)) return refuse("FOpts length differs from FCtrl's FOptsLen");
  if (fport === -1 && payload.length > 0) return refuse("FRMPayload without FPort");
  const head = Buffer.alloc(8);
  head[0] = mhdr!;
  head.writeUInt32LE(devAddr! >>> 0, 1);
  head[5] = fctrl!;
  head.writeUInt16LE(fcnt! & 0xffff, 6);
  const port = fport! >= 0 ? Buffer.from([fport!]) : Buffer.alloc(0);
  const micBytes = Buffer.alloc(4);
  micBytes.writeUInt32LE(mic! >>> 0);
  return ok(Buffer.concat([head, fopts, port, payload, micBytes]));
}

/** Reads a parsed station message for a station of `region`; refused when a member is missing or malformed. */
export function readStationMessage(o: StationObject, region: Region): Result<StationMessage> {
  switch (o.msgtype) {
    case "version": {
      const protocol = int(o, "protocol", 0, 1_000);
      if (protocol === undefined) return refuse("version needs protocol");
      const s = (k: string) => {
        const v = o[k];
        return typeof v === "string" ? v : "";
      };
      return ok({ msgtype: "version", station: s("station"), model: s("model"), protocol, features: s("features") });
    }
    case "jreq":
    case "updf":
    case "propdf": {
      const phy = o.msgtype === "jreq" ? joinRequest(o) : o.msgtype === "updf" ? dataFrame(o) : propdf(o);
      if (!phy.ok) return phy;
      const meta = radio(o, region, phy.value);
      if (!meta.ok) return meta;
      return ok({ msgtype: "uplink", kind: o.msgtype, phyPayload: phy.value, ...meta.value });
    }
    case "dntxed": {
      const diid = wide(o, "diid");
      if (diid === undefined) return refuse("dntxed needs diid");
      const devEui = parseEui(o.DevEui);
      const xtime = wide(o, "xtime");
      const gpstime = wide(o, "gpstime");
      return ok({
        msgtype: "dntxed",
        diid,
        ...(devEui.ok ? { devEui: devEui.value } : {}),
        ...(xtime !== undefined ? { xtime } : {}),
        ...(gpstime !== undefined ? { gpstime } : {}),
      });
    }
    case "timesync": {
      const txtime = wide(o, "txtime");
      return txtime === undefined ? refuse("timesync needs txtime") : ok({ msgtype: "timesync", txtime });
    }
    default:
      return ok({ msgtype: "other", type: o.msgtype });
  }
}

/** propdf: the whole PHYPayload in FRMPayload. */
function propdf(o: StationObject): Result<Buffer> {
  const b = hex(o, "FRMPayload");
  return b && b.length > 0 ? ok(b) : refuse("propdf needs FRMPayload");
}
