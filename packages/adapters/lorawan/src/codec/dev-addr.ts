// DevAddr allocation for joins. A DevAddr starts with the network's prefix, derived from its NetID: the NetID type
// as a unary code and the NwkID bits (LoRaWAN Backend Interfaces 1.0 §13 / LoRaWAN 1.1 §6.1.1; for NetID type 0
// this is the 7-bit NwkID of LoRaWAN 1.0.x). The rest is random, checked against the addresses already in use.
import { randomBytes as cryptoRandomBytes } from "node:crypto";
import { parseHex } from "./hex.js";
import { ok, refuse, type Result } from "./result.js";

/** The leading bits every DevAddr of a network has: `prefix` (a 32-bit value, other bits 0) and their count. */
export interface DevAddrPrefix {
  prefix: number;
  length: number;
}

/** NwkID length in bits for NetID types 0..7; the type's unary code is type + 1 bits long. */
const NWKID_BITS = [6, 6, 9, 11, 12, 13, 15, 17] as const;
/** Bits of the NetID that carry its ID for types 0..7 (the rest of the 24 are RFU or the type). */
const NETID_ID_BITS = [6, 6, 9, 21, 21, 21, 21, 21] as const;

const mask = (bits: number) => (bits >= 32 ? 0xffffffff : (1 << bits) - 1) >>> 0;

/** The DevAddr prefix of a NetID (6 hex digits): 000013 (The Things Network) → 26000000/7, 20006d → ad000000/8. */
export function devAddrPrefix(netId: string): Result<DevAddrPrefix> {
  const bytes = parseHex(netId, 3, "netId");
  if (!bytes.ok) return bytes;
  const value = bytes.value.readUIntBE(0, 3);
  const type = value >> 21;
  const nwkIdBits = NWKID_BITS[type]!;
  const nwkId = value & mask(NETID_ID_BITS[type]!) & mask(nwkIdBits);
  const typeLength = type + 1;
  const typeCode = (1 << typeLength) - 2; // type ones then a zero: 0, 10, 110, …
  const length = typeLength + nwkIdBits;
  return ok({ prefix: ((typeCode * 2 ** nwkIdBits + nwkId) * 2 ** (32 - length)) >>> 0, length });
}

/** Whether a DevAddr (8 hex digits) carries the network's prefix, i.e. the device belongs to this network. */
export function hasDevAddrPrefix(devAddr: string, prefix: DevAddrPrefix): boolean {
  const addr = parseHex(devAddr, 4, "devAddr");
  if (!addr.ok) return false;
  const m = (mask(prefix.length) * 2 ** (32 - prefix.length)) >>> 0;
  return (addr.value.readUInt32BE(0) & m) >>> 0 === prefix.prefix;
}

/** Options of {@link allocateDevAddr}. */
export interface AllocateOptions {
  /** The network's NetID, 6 hex digits. */
  netId: string;
  /** Whether a DevAddr is in use already (by any device of the service). */
  isTaken: (devAddr: string) => boolean | Promise<boolean>;
  /** Random source (default node:crypto), replaceable for tests. */
  randomBytes?: (n: number) => Uint8Array;
  /** Draws before giving up (default 16; with a sparse address space one is nearly always enough). */
  maxAttempts?: number;
}

/**
 * A fresh DevAddr for a joining device: the NetID's prefix and random NwkAddr bits, drawn again while `isTaken`
 * says the address is in use. Refused after `maxAttempts` taken draws (the address space is nearly full) or for a
 * bad NetID. Unique in the service as far as `isTaken` sees; the store's unique index is the final arbiter.
 */
export async function allocateDevAddr(options: AllocateOptions): Promise<Result<string>> {
  const prefix = devAddrPrefix(options.netId);
  if (!prefix.ok) return prefix;
  const random = options.randomBytes ?? cryptoRandomBytes;
  const attempts = options.maxAttempts ?? 16;
  const free = mask(32 - prefix.value.length);
  for (let i = 0; i < attempts; i++) {
    const draw = Buffer.from(random(4)).readUInt32BE(0);
    const addr = (prefix.value.prefix | (draw & free)) >>> 0;
    const text = addr.toString(16).padStart(8, "0");
    if (!(await options.isTaken(text))) return ok(text);
  }
  return refuse(`no free DevAddr under NetID ${options.netId} after ${attempts} attempts`);
}
