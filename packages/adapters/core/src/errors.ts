/** Why an adapter-side registry operation failed; a closed list so callers can switch on it. */
export type AdapterErrorCode =
  /** The bounded uplink buffer is full (the registry has been unreachable for a while). */
  | "BUFFER_FULL"
  /** The registry answered that it will never store this uplink (unknown device, ...). */
  | "UPLINK_REJECTED"
  /** The registry client was closed before the registry acknowledged the uplink. */
  | "CLIENT_CLOSED"
  /** The registry refused a request as invalid (e.g. a bad listener certificate request). */
  | "REQUEST_REJECTED"
  /** The caller gave the request up (its device hung up) before it was sent. */
  | "ABORTED"
  /** The uplink's payload is over IOT_MAX_MESSAGE_SIZE (or its topic too long); never buffered nor sent. */
  | "MESSAGE_TOO_LARGE"
  /** The device's tenant is over its uplink rate (maxUplinkRate) on this adapter: refused, never buffered nor sent. */
  | "RATE_LIMITED";

/** The one error class of the adapter core, so adapters can tell registry refusals from bugs. */
export class AdapterError extends Error {
  override readonly name = "AdapterError";

  constructor(
    readonly code: AdapterErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
