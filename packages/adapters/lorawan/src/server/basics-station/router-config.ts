// The `router_config` answering a station's `version` (Basics Station docs, "The LNS Protocol"): the region's name,
// band, data-rate table and a one-concentrator channel plan (the region's eight default gateway channels, its
// single-SF LoRa channel when it has one) and its class B beaconing where known, so a station needs no local
// channel configuration.
import type { Region } from "../../codec/region.js";

/** How far an IF channel may sit from its radio's centre, Hz (SX1301: about ±500 kHz less half a channel). */
const MAX_IF_HZ = 400_000;

type Radio = { enable: boolean; freq: number };
type Chan = { enable: boolean; radio?: number; if?: number; bandwidth?: number; spread_factor?: number };

/** Splits channels over the two radios: each radio takes what fits within ±MAX_IF_HZ of its centre. */
function planRadios(channels: readonly number[]): { radios: [Radio, Radio]; at: (hz: number) => Chan } {
  const sorted = [...channels].sort((a, b) => a - b);
  const groups: number[][] = [[], []];
  for (const hz of sorted) {
    const g = groups[0]!.length === 0 || hz - groups[0]![0]! <= 2 * MAX_IF_HZ ? 0 : 1;
    groups[g]!.push(hz);
  }
  const centre = (g: number[]) => (g.length ? Math.round((g[0]! + g[g.length - 1]!) / 2 / 100_000) * 100_000 : 0);
  const radios: [Radio, Radio] = [
    { enable: groups[0]!.length > 0, freq: centre(groups[0]!) },
    { enable: groups[1]!.length > 0, freq: centre(groups[1]!) || centre(groups[0]!) },
  ];
  const at = (hz: number): Chan => {
    const r = radios.findIndex((x) => x.enable && Math.abs(hz - x.freq) <= MAX_IF_HZ);
    return r < 0 ? { enable: false } : { enable: true, radio: r, if: hz - radios[r]!.freq };
  };
  return { radios, at };
}

/**
 * Class B beacons a station sends (`bcning`: DR, the octet offsets of Time and GwSpecific and the beacon's length,
 * frequencies), by region: the EU868 setting the Basics Station docs give. Other regions' stations send none.
 */
const BEACONING: Partial<Record<Region["name"], object>> = {
  EU868: { DR: 3, layout: [2, 8, 17], freqs: [869_525_000] },
};

/** The `router_config` message for a station serving `region` in network `netId` (6 hex digits). */
export function routerConfig(region: Region, netId: string): Record<string, unknown> {
  const DRs: [number, number, number][] = [];
  for (let dr = 0; dr < 16; dr++) {
    const up = region.uplinkDataRates[dr];
    const rate = up ?? region.downlinkDataRates[dr];
    if (!rate) DRs.push([-1, 0, 0]);
    else if (rate.modu === "FSK") DRs.push([0, 0, up ? 0 : 1]);
    else DRs.push([rate.sf, rate.bwKHz, up ? 0 : 1]);
  }
  const multi = region.gatewayChannels.slice(0, 8);
  const std = region.gatewayStdChannel;
  const { radios, at } = planRadios(std ? [...multi, std.frequency] : multi);
  const conf: Record<string, unknown> = { radio_0: radios[0], radio_1: radios[1] };
  for (let i = 0; i < 8; i++) conf[`chan_multiSF_${i}`] = multi[i] === undefined ? { enable: false } : at(multi[i]!);
  const stdRate = std && region.uplinkDataRates[std.dataRate];
  conf.chan_Lora_std =
    std && stdRate?.modu === "LORA"
      ? { ...at(std.frequency), bandwidth: stdRate.bwKHz * 1000, spread_factor: stdRate.sf }
      : { enable: false };
  conf.chan_FSK = { enable: false };
  return {
    msgtype: "router_config",
    NetID: [parseInt(netId, 16)],
    JoinEui: [],
    region: region.name,
    hwspec: "sx1301/1",
    freq_range: [...region.band],
    DRs,
    sx1301_conf: [conf],
    nocca: false,
    nodc: false,
    nodwell: !region.dwellTime,
    ...(BEACONING[region.name] ? { bcning: BEACONING[region.name] } : {}),
    MuxTime: Date.now() / 1000,
  };
}
