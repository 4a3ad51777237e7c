// A LoRaWAN multicast downlink (LoRaWAN 1.0.4 §11.2 and TS005 Remote Multicast Setup §2): an Unconfirmed Data Down
// frame to the group's McAddr, ACK, ADRACKReq and FPending 0 and no FOpts (a multicast frame carries no MAC
// commands), FRMPayload on an application port encrypted under the McAppSKey, MIC under the McNwkSKey over the
// 32-bit McFCntDown. Every member of the group checks and decrypts the same bytes.
import { parseHex, parseKey } from "./hex.js";
import { ok, refuse, type Result } from "./result.js";
import { buildDownlink } from "./uplink.js";

/** A multicast session's frame to build: keys and McAddr as hex digits, FPort 1..223. */
export interface MulticastFrame {
  /** 8 hex digits. */
  mcAddr: string;
  /** 32 hex digits each. */
  mcNwkSKey: string;
  mcAppSKey: string;
  /** McFCntDown, 0..2^32-2. */
  fcnt: number;
  fPort: number;
  payload: Buffer;
}

/** Largest FRMPayload of any data rate, bytes (the data rate's own limit is the region's `planDownlink` check). */
const MAX_PAYLOAD = 242;

/** The PHYPayload of a multicast downlink; refused when a field is not a valid session, port or payload. */
export function encodeMulticastFrame(f: MulticastFrame): Result<Buffer> {
  const addr = parseHex(f.mcAddr, 4, "McAddr");
  if (!addr.ok) return addr;
  const nwk = parseKey(f.mcNwkSKey, "McNwkSKey");
  if (!nwk.ok) return nwk;
  const app = parseKey(f.mcAppSKey, "McAppSKey");
  if (!app.ok) return app;
  if (!Number.isInteger(f.fPort) || f.fPort < 1 || f.fPort > 223)
    return refuse(`FPort ${f.fPort} must be an application port 1..223`);
  if (!Number.isInteger(f.fcnt) || f.fcnt < 0 || f.fcnt > 0xfffffffe)
    return refuse(`McFCntDown ${f.fcnt} must be 0..4294967294`);
  if (f.payload.length > MAX_PAYLOAD) return refuse(`payload over ${MAX_PAYLOAD} bytes`);
  const built = buildDownlink({
    devAddr: f.mcAddr.toLowerCase(),
    nwkSKey: nwk.value,
    appSKey: app.value,
    fcntDown: f.fcnt,
    fPort: f.fPort,
    payload: f.payload,
  });
  return built.ok ? ok(built.value.phy) : built;
}
