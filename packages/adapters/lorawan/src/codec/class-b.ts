// Class B ping-slot timing (LoRaWAN 1.0.4 §14 / Class B of LoRaWAN 1.1 §13): gateways send a beacon at the start
// of every 128 s of GPS time; after it come 2.120 s reserved for the beacon and a 122.880 s window of 4096 slots of
// 30 ms in which a class B device opens a receive window every `pingPeriod` slots from a pseudo-random
// `pingOffset`. Network and device compute the same slots from the beacon time and the DevAddr, so the network
// can schedule a downlink in the device's next ping slot without asking it. Pure functions of GPS time in ms.
import { createCipheriv } from "node:crypto";
import { parseHex, reversed } from "./hex.js";
import { ok, refuse, type Result } from "./result.js";

/** Beacon period: one beacon every 128 s of GPS time. */
export const BEACON_PERIOD_MS = 128_000;
/** Time after the beacon's start reserved for the beacon itself. */
const BEACON_RESERVED_MS = 2_120;
/** Length of one ping slot. */
const SLOT_LEN_MS = 30;
/** Slots in the ping window of one beacon period (122.880 s / 30 ms). */
const SLOTS_PER_BEACON = 4096;

/** GPS epoch (1980-01-06T00:00:00Z) in Unix ms. */
const GPS_EPOCH_UNIX_MS = 315_964_800_000;
/** GPS time runs ahead of UTC by the leap seconds since 1980: 18 since 2017-01-01 (none announced since). */
const GPS_LEAP_SECONDS = 18;

/** GPS time in ms of a Unix time in ms (for gateways that report UTC; GPS-synchronised ones report GPS time). */
export function gpsMsFromUnixMs(unixMs: number): number {
  return unixMs - GPS_EPOCH_UNIX_MS + GPS_LEAP_SECONDS * 1000;
}

/** The GPS time in ms at which the beacon period holding `gpsMs` began (a multiple of 128 s). */
export function beaconStartMs(gpsMs: number): number {
  return Math.floor(gpsMs / BEACON_PERIOD_MS) * BEACON_PERIOD_MS;
}

/** Ping slots per beacon period for a PingSlotInfoReq periodicity 0..7: pingNb = 2^(7 - periodicity). */
export function pingNb(periodicity: number): number {
  return 2 ** (7 - periodicity);
}

/** Slots between two ping slots: pingPeriod = 2^12 / pingNb = 2^(5 + periodicity), i.e. 0.96 s × 2^periodicity. */
export function pingPeriod(periodicity: number): number {
  return SLOTS_PER_BEACON / pingNb(periodicity);
}

/** The periodicity a PingSlotInfoReq's one payload byte carries (bits 2..0; the rest is RFU). */
export function periodicityOfPingSlotInfo(byte: number): number {
  return byte & 0x07;
}

const isPeriodicity = (p: number) => Number.isInteger(p) && p >= 0 && p <= 7;

/**
 * The device's ping offset in a beacon period: Rand = aes128_encrypt(16 × 0x00, BeaconTime | DevAddr | pad16),
 * BeaconTime being the period's start in whole GPS seconds (4 bytes) and DevAddr its 4 bytes, both least
 * significant byte first; pingOffset = (Rand[0] + Rand[1] × 256) mod pingPeriod. It changes every period so two
 * devices do not collide in every one.
 */
export function pingOffset(beaconTimeS: number, devAddr: string, periodicity: number): Result<number> {
  if (!isPeriodicity(periodicity)) return refuse("periodicity must be 0..7");
  const addr = parseHex(devAddr, 4, "devAddr");
  if (!addr.ok) return addr;
  const block = Buffer.alloc(16);
  block.writeUInt32LE(beaconTimeS >>> 0, 0);
  reversed(addr.value).copy(block, 4);
  const rand = createCipheriv("aes-128-ecb", Buffer.alloc(16), null).setAutoPadding(false).update(block);
  return ok((rand[0]! + rand[1]! * 256) % pingPeriod(periodicity));
}

/**
 * The GPS times in ms at which the device's ping slots open in the beacon period that starts at `beaconMs`:
 * beaconMs + 2.120 s + (pingOffset + N × pingPeriod) × 30 ms for N = 0 … pingNb − 1.
 */
export function pingSlotTimes(beaconMs: number, devAddr: string, periodicity: number): Result<number[]> {
  if (beaconMs % BEACON_PERIOD_MS !== 0) return refuse("beaconMs must be the start of a beacon period");
  const offset = pingOffset(beaconMs / 1000, devAddr, periodicity);
  if (!offset.ok) return offset;
  const period = pingPeriod(periodicity);
  const times: number[] = [];
  for (let n = 0; n < pingNb(periodicity); n++)
    times.push(beaconMs + BEACON_RESERVED_MS + (offset.value + n * period) * SLOT_LEN_MS);
  return ok(times);
}

/** The GPS time in ms of the device's first ping slot opening at or after `afterGpsMs`. */
export function nextPingSlot(afterGpsMs: number, devAddr: string, periodicity: number): Result<number> {
  for (let beacon = beaconStartMs(afterGpsMs); ; beacon += BEACON_PERIOD_MS) {
    const times = pingSlotTimes(beacon, devAddr, periodicity);
    if (!times.ok) return times;
    const next = times.value.find((t) => t >= afterGpsMs);
    if (next !== undefined) return ok(next);
  }
}

/** Where and how fast a ping slot is sent: frequency in Hz and downlink DR index. */
export interface PingSlotChannel {
  hz: number;
  dr: number;
}

/**
 * The plans that hop: a device's ping slots use beacon channel (floor(BeaconTime / 128 s) + DevAddr) mod 8, from
 * `firstHz` in steps of `stepHz` (US915 and AU915: 923.3 + 0.6 × n MHz; CN470: 508.3 + 0.2 × n MHz).
 */
const HOPPING: Readonly<Record<string, { firstHz: number; stepHz: number; dr: number }>> = {
  US915: { firstHz: 923_300_000, stepHz: 600_000, dr: 8 },
  AU915: { firstHz: 923_300_000, stepHz: 600_000, dr: 8 },
  CN470: { firstHz: 508_300_000, stepHz: 200_000, dr: 2 },
};

/** The plans with one ping-slot channel (AS923-2..4: AS923-1's 923.4 MHz shifted down like the rest of the plan). */
const FIXED: Readonly<Record<string, PingSlotChannel>> = {
  EU868: { hz: 869_525_000, dr: 3 },
  "AS923-1": { hz: 923_400_000, dr: 3 },
  "AS923-2": { hz: 921_600_000, dr: 3 },
  "AS923-3": { hz: 916_800_000, dr: 3 },
  "AS923-4": { hz: 917_500_000, dr: 3 },
  KR920: { hz: 923_100_000, dr: 3 },
  IN865: { hz: 866_550_000, dr: 4 },
  RU864: { hz: 868_900_000, dr: 3 },
};

/**
 * The default ping-slot channel of a region (RP002-1.0.3, each region's "Class B beacon" and default settings
 * sections): the frequency and data rate a class B device listens on in the beacon period that starts at `beaconMs`
 * (GPS ms) when the network did not move it (PingSlotChannelReq, which this server does not send).
 */
export function pingSlotChannel(region: string, beaconMs: number, devAddr: string): Result<PingSlotChannel> {
  const addr = parseHex(devAddr, 4, "devAddr");
  if (!addr.ok) return addr;
  const fixed = FIXED[region];
  if (fixed) return ok(fixed);
  const hop = HOPPING[region];
  if (!hop) return refuse(`region ${region} has no class B ping-slot channel here`);
  const n = (Math.floor(beaconMs / BEACON_PERIOD_MS) + addr.value.readUInt32BE(0)) % 8;
  return ok({ hz: hop.firstHz + n * hop.stepHz, dr: hop.dr });
}
