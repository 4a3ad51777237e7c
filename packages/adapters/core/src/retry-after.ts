import type { AdapterErrorCode } from "./errors.js";
import type { AuthFailureCode } from "./registry-client.js";

/**
 * How long a device refused for a passing reason is asked to wait before it tries again, in seconds (HTTP's
 * `Retry-After`; CoAP's Max-Age on a 5.03 or 4.29, whose absence would tell the device to wait 60 seconds, RFC 7252
 * §5.10.5): the uplink buffer full, the tenant over its uplink rate (its token bucket refills within a second), the
 * registry out of reach or the link to it closing. Undefined for refusals that trying again soon cannot cure, a
 * tenant at its connection limit among them.
 */
export function retryAfterSeconds(code: AdapterErrorCode | AuthFailureCode): number | undefined {
  switch (code) {
    case "BUFFER_FULL":
    case "RATE_LIMITED":
    case "CLIENT_CLOSED":
    case "UNAVAILABLE":
      return 1;
    default:
      return undefined;
  }
}
