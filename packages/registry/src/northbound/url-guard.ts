import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { RegistryError } from "../errors.js";

/**
 * Addresses a webhook may not reach unless the service admin allows private targets: loopback, RFC 1918 private,
 * carrier-grade NAT, link-local (cloud metadata at 169.254.169.254), "this network", multicast, reserved, and their
 * IPv6 counterparts (unique local, link-local, IPv4-mapped and NAT64-mapped forms of the above).
 */
const blocked = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const)
  blocked.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 127],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  blocked.addSubnet(net, bits, "ipv6");

/** True when `address` (an IP literal) is loopback, private, link-local or otherwise not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family !== 6) return true;
  const lower = address.toLowerCase();
  // IPv4 embedded in IPv6 (::ffff:a.b.c.d, 64:ff9b::a.b.c.d): judged by the IPv4 address.
  const mapped = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (mapped) return blocked.check(mapped[1]!, "ipv4");
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hexMapped) {
    const n = (parseInt(hexMapped[1]!, 16) << 16) | parseInt(hexMapped[2]!, 16);
    return blocked.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join("."), "ipv4");
  }
  return blocked.check(lower, "ipv6");
}

/** Resolves a host name to every address it has (all families). */
export type Resolver = (host: string) => Promise<string[]>;

/** The system resolver: every A and AAAA answer. */
export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

const invalid = (message: string) => new RegistryError("FORM_INVALID", { url: message });

/**
 * Checks a webhook URL: http or https, no credentials in it, and — unless `allowPrivate` — a host whose every
 * resolved address is public (a name with one private address among public ones is refused: the connection could
 * use it). FORM_INVALID naming `url` otherwise. Deliveries check again when they connect (see webhook-sender.ts).
 */
export async function checkWebhookUrl(url: string, allowPrivate: boolean, resolve = systemResolver): Promise<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid("must be an absolute http or https URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw invalid("must be an http or https URL");
  if (parsed.username || parsed.password) throw invalid("must not carry credentials");
  if (allowPrivate) return parsed;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolve(host);
  } catch {
    throw invalid(`host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw invalid(`host ${host} does not resolve`);
  const bad = addresses.find(isPrivateAddress);
  if (bad !== undefined)
    throw invalid(`resolves to ${bad}, a loopback, private or link-local address (see IOT_WEBHOOK_ALLOW_PRIVATE)`);
  return parsed;
}
