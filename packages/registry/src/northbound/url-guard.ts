import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { RegistryError } from "../errors.js";
import { isPrivateAddress } from "./private-address.js";

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
  if (bad !== undefined) throw invalid(`resolves to ${bad}, not a public address (see IOT_WEBHOOK_ALLOW_PRIVATE)`);
  return parsed;
}
