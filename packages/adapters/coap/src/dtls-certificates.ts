import { createHash, webcrypto, X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import { AdapterError, type RegistryClient } from "@iot/adapter-core";
import { StartupError } from "@iot/config";
import * as x509 from "./x509.js";

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** The DTLS server's certificate and key (PEM) and the service CA that issued device certificates. */
export interface DtlsCertificates {
  readonly chain: string;
  readonly key: string;
  readonly ca: X509Certificate;
}

/** Addresses that mean "every interface": not a name a device could use. */
const WILDCARDS = new Set(["", "0.0.0.0", "::", "[::]"]);

/** The names the server certificate carries: the advertised host, a specific bind address, the loopback names. */
export function dtlsHostnames(publicHost: string, bindHost: string): string[] {
  const names = [publicHost, WILDCARDS.has(bindHost) ? "" : bindHost, "localhost", "127.0.0.1", "::1"];
  return [...new Set(names.map((n) => n.trim().replace(/^\[(.*)\]$/, "$1")).filter((n) => n !== ""))];
}

/**
 * Has the registry sign a server certificate for a fresh P-256 key (the one curve the ECDHE_ECDSA suites sign with)
 * and answer the service CA, which every device certificate from `/certs` chains to: the same exchange as the MQTT
 * adapter's mutual-TLS listener. The key never leaves the process. Waits while the registry is unreachable; a
 * refusal is a one-line StartupError.
 */
export async function dtlsCertificates(
  registry: RegistryClient,
  hostnames: readonly string[],
): Promise<DtlsCertificates> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"]);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [{ CN: [hostnames[0] ?? "localhost"] }],
    keys,
    signingAlgorithm: EC,
    extensions: [
      new x509.SubjectAlternativeNameExtension(hostnames.map((h) => ({ type: isIP(h) ? "ip" : "dns", value: h }))),
    ],
  });
  const key = x509.PemConverter.encode(await webcrypto.subtle.exportKey("pkcs8", keys.privateKey), "PRIVATE KEY");
  try {
    const issued = await registry.issueListenerCertificate(csr.toString("pem"), hostnames);
    return { chain: issued.certPem, key, ca: new X509Certificate(issued.caPem) };
  } catch (err) {
    if (err instanceof AdapterError && err.code === "REQUEST_REJECTED")
      throw new StartupError(`${err.message} (hostnames ${hostnames.join(", ")}; check IOT_PUBLIC_HOST)`);
    throw err;
  }
}

/** A client certificate that chains to the service CA: its subject CN and the SHA-256 of its DER (hex). */
export interface VerifiedCertificate {
  readonly commonName: string;
  readonly fingerprint: string;
}

/**
 * Checks a client's chain (DER, its own certificate first) as the MQTT mutual-TLS listener's TLS stack does: the
 * first certificate is issued and signed by the service CA (device certificates are issued by it directly; any
 * further certificates the client sends are not needed), and both are within their validity at `now`. Answers why
 * not as a string. A certificate with no or several CNs yields CN "" (the registry then finds no record).
 */
export function verifyClientChain(
  chain: readonly Buffer[],
  ca: X509Certificate,
  now = new Date(),
): VerifiedCertificate | string {
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(chain[0]!);
  } catch {
    return "client certificate does not parse";
  }
  const within = (c: X509Certificate) => new Date(c.validFrom) <= now && now <= new Date(c.validTo);
  if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey)) return "client certificate not issued by the service CA";
  if (!within(leaf) || !within(ca)) return "client certificate expired or not yet valid";
  if (leaf.ca) return "client certificate is a CA certificate";
  const cns = leaf.subject.split("\n").filter((line) => line.startsWith("CN="));
  return {
    commonName: cns.length === 1 ? cns[0]!.slice(3) : "",
    fingerprint: createHash("sha256").update(leaf.raw).digest("hex"),
  };
}
