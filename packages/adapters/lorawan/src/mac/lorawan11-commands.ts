// The LoRaWAN 1.1 MAC commands that negotiate the version and confirm new keys (1.1 §5.1 and §5.10): a 1.1 ABP
// device sends ResetInd after a reset and a 1.1 OTAA device RekeyInd with every uplink after a join until the
// network answers; both carry the device's minor version and the answer the version the network will speak.
import { ok, refuse, type Result } from "../codec/result.js";

/** CIDs of the two exchanges (the same CID in both directions). */
const CID_RESET = 0x01;
const CID_REKEY = 0x0b;

/** Minor version of LoRaWAN 1.1, as ResetInd/RekeyInd and their answers carry it. */
const MINOR_1_1 = 1;

/** A ResetInd or RekeyInd read from an uplink's MAC commands: which, and the device's LoRaWAN minor version. */
export interface VersionIndication {
  type: "ResetInd" | "RekeyInd";
  minor: number;
}

/** Reads a ResetInd (0x01) or RekeyInd (0x0B) with its one payload byte (minor version in bits 3..0). */
export function decodeVersionIndication(bytes: Uint8Array): Result<VersionIndication> {
  if (bytes.length !== 2) return refuse(`a ResetInd or RekeyInd is 2 bytes, got ${bytes.length}`);
  const type = bytes[0] === CID_RESET ? "ResetInd" : bytes[0] === CID_REKEY ? "RekeyInd" : undefined;
  if (!type) return refuse(`CID ${bytes[0]} is neither ResetInd nor RekeyInd`);
  return ok({ type, minor: bytes[1]! & 0x0f });
}

/**
 * The ResetConf or RekeyConf answering `ind`: the same CID and the version the network serves the device at, the
 * lower of the device's and 1.1 (a network never claims a version above the device's).
 */
export function versionConfirmation(ind: VersionIndication): Buffer {
  return Buffer.from([ind.type === "ResetInd" ? CID_RESET : CID_REKEY, Math.min(ind.minor, MINOR_1_1)]);
}
