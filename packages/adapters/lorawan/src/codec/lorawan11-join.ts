// The nonce rules of a LoRaWAN 1.1 join (1.1 §6.2.4 and §6.2.5). In 1.1 both nonces are counters, not random
// numbers: the device's DevNonce starts at 0 and increases with every JoinRequest, and the join server's JoinNonce
// increases with every JoinAccept it sends the device. A JoinRequest whose DevNonce is not above the last one the
// network accepted is a replay; a device only accepts a JoinAccept whose JoinNonce is above the last one it saw.
import { ok, refuse, type Result } from "./result.js";

/**
 * Accepts a 1.1 JoinRequest's DevNonce when it is above `lastDevNonce` (undefined before the first join), and
 * answers it as the new last DevNonce to keep; refuses a DevNonce that does not increase.
 */
export function acceptDevNonce11(lastDevNonce: number | undefined, devNonce: number): Result<number> {
  if (!Number.isInteger(devNonce) || devNonce < 0 || devNonce > 0xffff)
    return refuse(`DevNonce ${devNonce} must be 0..65535`);
  if (lastDevNonce !== undefined && devNonce <= lastDevNonce)
    return refuse(`DevNonce ${devNonce} is not above the last one (${lastDevNonce}): a replayed JoinRequest`);
  return ok(devNonce);
}

/** The JoinNonce of the next JoinAccept: one above the last (0 for the first); refused once the 24 bits run out. */
export function nextJoinNonce(lastJoinNonce: number | undefined): Result<number> {
  const next = lastJoinNonce === undefined ? 0 : lastJoinNonce + 1;
  if (!Number.isInteger(next) || next < 0 || next > 0xffffff) return refuse("JoinNonce has run out of its 24 bits");
  return ok(next);
}
