import { BlockList, isIP } from "node:net";

/**
 * IPv4 ranges a webhook may not reach unless the service admin allows private targets (IANA special-purpose
 * registry): "this network", RFC 1918 private, carrier-grade NAT, loopback, link-local (cloud metadata at
 * 169.254.169.254), IETF protocol assignments, documentation (TEST-NET-1/2/3), the old 6to4 relay anycast,
 * benchmarking, and multicast, reserved and broadcast (224/3).
 */
const blockedV4 = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const)
  blockedV4.addSubnet(net, bits, "ipv4");

/** Global unicast IPv6 (2000::/3): everything else (ULA, link-local, multicast, ::/8, 100::/64, …) is refused. */
const globalV6 = new BlockList();
globalV6.addSubnet("2000::", 3, "ipv6");

/** Special ranges inside 2000::/3: IETF protocol assignments (2001::/23), documentation (2001:db8::/32, 3fff::/20). */
const specialV6 = new BlockList();
for (const [net, bits] of [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["3fff::", 20],
] as const)
  specialV6.addSubnet(net, bits, "ipv6");

/** The eight 16-bit groups of a valid IPv6 literal (a zone id dropped, a trailing dotted IPv4 folded into two). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [b0, b1, b2, b3] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((h) => parseInt(h, 16)));
  const [head, tail] = text.split("::") as [string, string | undefined];
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4 = (hi: number, lo: number) => `${hi >>> 8}.${hi & 255}.${lo >>> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries, when it is one of the forms that reach an IPv4 host (or relay):
 * IPv4-compatible ::a.b.c.d (which covers :: and ::1), IPv4-mapped ::ffff:a.b.c.d, IPv4-translated
 * ::ffff:0:a.b.c.d (RFC 2765), NAT64 64:ff9b::/96 (RFC 6052), 6to4 2002:aabb:ccdd::/48 (RFC 3056) and Teredo
 * 2001:0::/32 (RFC 4380: its server and its client's obfuscated public address). Undefined for any other address.
 */
function embeddedIpv4(g: number[]): string[] | undefined {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last = ipv4(g[6]!, g[7]!);
  if (zero(0, 6)) return [last];
  if (zero(0, 5) && g[5] === 0xffff) return [last];
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return [last];
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return [last];
  if (g[0] === 0x2002) return [ipv4(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [ipv4(g[2]!, g[3]!), ipv4(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  return undefined;
}

/**
 * True when `address` (an IP literal) is not a public unicast address: the one check of webhook URLs at creation and
 * of the addresses deliveries connect to. An IPv6 address that embeds an IPv4 address is judged by that address (so
 * `[::7f00:1]`, `[::ffff:0:7f00:1]` and `[64:ff9b::7f00:1]` are loopback); other IPv6 addresses must be global
 * unicast (2000::/3) outside the special ranges, which refuses ULA, link-local, site-local, multicast, discard,
 * documentation and the local-use NAT64 prefix 64:ff9b:1::/48 (whose layout only the local network knows).
 * Anything that is not an IP literal counts as private.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blockedV4.check(address, "ipv4");
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  const embedded = embeddedIpv4(groups);
  if (embedded !== undefined) return embedded.some((a) => blockedV4.check(a, "ipv4"));
  const normal = groups.map((x) => x.toString(16)).join(":");
  return !globalV6.check(normal, "ipv6") || specialV6.check(normal, "ipv6");
}
