import type { Downlink, DownlinkOutcome, RegistryHandlers } from "./registry-client.js";

/**
 * Runs the protocol's downlink handler with the checks every adapter needs:
 * an expired command is not delivered, and a missing handler or a throw
 * becomes FAILED instead of leaving the command in flight forever.
 */
export async function dispatchDownlink(
  handlers: RegistryHandlers,
  downlink: Downlink,
  nowMs = Date.now(),
): Promise<DownlinkOutcome> {
  if (downlink.expiresAtMs > 0 && nowMs > downlink.expiresAtMs) {
    return { status: "FAILED", message: "expired before delivery" };
  }
  if (!handlers.downlink) return { status: "FAILED", message: "adapter has no downlink handler" };
  try {
    return await handlers.downlink(downlink);
  } catch (err) {
    return { status: "FAILED", message: `delivery failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
