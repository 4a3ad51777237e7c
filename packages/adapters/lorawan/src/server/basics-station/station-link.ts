import { mhzToHz, type TxPacket } from "../../codec/radio-packet.js";
import { downlinkDataRate } from "../../codec/region.js";
import { ok, refuse, type Result } from "../../codec/result.js";
import type { DownlinkRequest, GatewayLink } from "../gateway-link.js";
import type { TransmitOutcome } from "../transmitter.js";
import { formatEui } from "./station-json.js";

/** `priority` of a dnmsg: all downlinks alike; a station uses it only between conflicting frames. */
const PRIORITY = 0;

/** DR index and frequency (Hz) of a planned txpk. */
function drAndFreq(request: DownlinkRequest, tx: TxPacket): Result<{ dr: number; hz: number }> {
  const dr = downlinkDataRate(request.region, tx);
  return dr.ok ? ok({ dr: dr.value, hz: mhzToHz(tx.freq) }) : dr;
}

/** A non-zero DevEui for the dnmsg: the device's, else 00-00-00-00 and the frame's DevAddr (ABP devices). */
function devEuiOf(request: DownlinkRequest): string {
  if (request.devEui && !/^0+$/.test(request.devEui)) return formatEui(request.devEui.padStart(16, "0"));
  const addr =
    request.tx.data.length >= 5 ? Buffer.from(request.tx.data.subarray(1, 5)).reverse().toString("hex") : "1";
  return formatEui(addr.padStart(16, "0"));
}

/**
 * The `dnmsg` of a downlink (Basics Station docs, "Single Frame Downlink"): class A with the uplink's xtime and rctx
 * passed back unchanged, RxDelay and the window's DR/frequency (an RX1 dnmsg carries the RX2 parameters too, so the
 * station falls back to RX2 itself when RX1 cannot be met); class B (`ping`) at the ping slot's `gpstime` with its
 * DR and frequency; class C (`immediate`) with the RX2 parameters only.
 */
export function buildDnmsg(request: DownlinkRequest, diid: bigint): Result<Record<string, unknown>> {
  const main = drAndFreq(request, request.tx);
  if (!main.ok) return main;
  const base = {
    msgtype: "dnmsg",
    DevEui: devEuiOf(request),
    diid,
    pdu: request.tx.data.toString("hex"),
    priority: PRIORITY,
  };
  const upinfo = request.copy.station;
  if (request.window === "ping") {
    if (request.tx.tmms === undefined) return refuse("a class B dnmsg needs the ping slot's GPS time");
    // dC 1: sent at `gpstime` (µs since the GPS epoch), which the station needs its own GPS (PPS) for.
    const at = { gpstime: BigInt(request.tx.tmms) * 1000n, DR: main.value.dr, Freq: main.value.hz };
    return ok({ ...base, dC: 1, ...at, ...(upinfo ? { rctx: upinfo.rctx } : {}) });
  }
  if (request.window === "immediate")
    return ok({
      ...base,
      dC: 2,
      RX2DR: main.value.dr,
      RX2Freq: main.value.hz,
      ...(upinfo ? { rctx: upinfo.rctx } : {}),
    });
  if (!upinfo) return refuse("a class A dnmsg needs the uplink's xtime (the copy did not come from a station)");
  const timing = { RxDelay: request.rx1DelayS, xtime: upinfo.xtime, rctx: upinfo.rctx };
  if (request.window === "rx2") return ok({ ...base, dC: 0, ...timing, RX2DR: main.value.dr, RX2Freq: main.value.hz });
  const rx2 = request.fallback ? drAndFreq(request, request.fallback) : undefined;
  return ok({
    ...base,
    dC: 0,
    ...timing,
    RX1DR: main.value.dr,
    RX1Freq: main.value.hz,
    ...(rx2?.ok ? { RX2DR: rx2.value.dr, RX2Freq: rx2.value.hz } : {}),
  });
}

/**
 * The link of a connected station: each downlink goes out as one dnmsg. The protocol has no negative feedback (a
 * station reports only frames it put on air, in `dntxed`), so a dnmsg written to the socket counts as scheduled.
 */
export function stationLink(send: (message: object) => Promise<void>, nextDiid: () => bigint): GatewayLink {
  return {
    protocol: "basics-station",
    async transmit(request): Promise<TransmitOutcome> {
      const msg = buildDnmsg(request, nextDiid());
      if (!msg.ok) return { ok: false, error: msg.reason };
      try {
        await send(msg.value);
        return { ok: true };
      } catch (err) {
        return { ok: false, error: `station link: ${(err as Error).message}` };
      }
    },
  };
}
