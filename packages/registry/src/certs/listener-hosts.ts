import { isIP } from "node:net";
import { RegistryError } from "../errors.js";

/** Names of the adapter's own host, which every listener certificate may carry besides the public host. */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"] as const;

/** One spelling per name: lower case, without a final dot, IPv6 addresses in their shortest form. */
function canonical(name: string): string {
  const n = name.trim().toLowerCase().replace(/\.$/, "");
  return isIP(n) === 6 ? new URL(`http://[${n}]`).hostname.slice(1, -1) : n;
}

/**
 * Refuses a listener certificate for any name but the host devices reach the adapters by (`IOT_PUBLIC_HOST`) and the
 * loopback names, so whoever can call IssueListenerCertificate cannot have the service CA, which devices trust,
 * vouch for another site's name. Blank names are let through (the signer drops them).
 * @throws RegistryError PERMISSION_DENIED naming the first name refused, in `errors.hostnames` and the message.
 */
export function checkListenerHosts(hostnames: readonly string[], publicHost: string): void {
  const allowed = new Set([publicHost, ...LOOPBACK_NAMES].map(canonical));
  const refused = hostnames.find((h) => h.trim() !== "" && !allowed.has(canonical(h)));
  if (refused === undefined) return;
  const reason =
    `"${refused.trim().slice(0, 80)}" is neither the public host (IOT_PUBLIC_HOST=${publicHost}) ` +
    `nor a loopback name (${LOOPBACK_NAMES.join(", ")})`;
  throw new RegistryError("PERMISSION_DENIED", { hostnames: reason }, `hostnames: ${reason}`);
}
