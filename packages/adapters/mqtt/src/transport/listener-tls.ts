import { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import { createSecureContext } from "node:tls";
import type { Logger } from "pino";
import { AdapterError, type RegistryClient } from "@iot/adapter-core";
import { StartupError } from "@iot/config";
import type { TlsMaterial } from "./tls.js";
import * as x509 from "./x509.js";

const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

/** Addresses that mean "every interface": not a name a device could use. */
const WILDCARDS = new Set(["", "0.0.0.0", "::", "[::]"]);

/**
 * The names the listener certificate must carry so devices can verify it:
 * the advertised host (IOT_PUBLIC_HOST), the bind address when it is a
 * specific one, and the loopback names for devices on the same machine.
 */
export function listenerHostnames(publicHost: string, bindHost: string): string[] {
  const names = [publicHost, WILDCARDS.has(bindHost) ? "" : bindHost, "localhost", "127.0.0.1", "::1"];
  return [...new Set(names.map((n) => n.trim().replace(/^\[(.*)\]$/, "$1")).filter((n) => n !== ""))];
}

/** A fresh ECDSA P-256 key (PKCS#8 PEM) and a PKCS#10 request for `hostnames`, signed with it. */
export async function makeListenerCsr(hostnames: readonly string[]): Promise<{ keyPem: string; csrPem: string }> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"]);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: [{ CN: [hostnames[0] ?? "localhost"] }],
    keys,
    signingAlgorithm: EC,
    extensions: [
      new x509.SubjectAlternativeNameExtension(hostnames.map((h) => ({ type: isIP(h) ? "ip" : "dns", value: h }))),
    ],
  });
  const keyDer = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  return { keyPem: x509.PemConverter.encode(keyDer, "PRIVATE KEY"), csrPem: csr.toString("pem") };
}

function readPem(path: string, env: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new StartupError(
      `${env}=${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
}

/** What the TLS listeners need; `needCa` only when the mutual-TLS listener runs. */
export interface ListenerTlsOptions {
  readonly registry: RegistryClient;
  readonly logger: Logger;
  /** IOT_MQTT_TLS_CERT / IOT_MQTT_TLS_KEY: PEM files; both unset means "issue one from the service CA". */
  readonly certFile: string | undefined;
  readonly keyFile: string | undefined;
  readonly hostnames: readonly string[];
  readonly needCa: boolean;
}

/**
 * The server certificate, key and service CA of the TLS listeners. A
 * configured certificate (e.g. from a public CA) is used as is; otherwise the
 * adapter makes a key that never leaves the process and has the registry sign
 * it with the service CA, so devices verify the listener with the `root` of
 * their certificate record. The mutual-TLS listener always needs the service
 * CA, which only the registry holds: with a configured certificate the
 * adapter still asks, and ignores the certificate issued alongside. Waits
 * while the registry is unreachable; a refusal or a bad file is a one-line
 * StartupError.
 */
export async function listenerTls(options: ListenerTlsOptions): Promise<TlsMaterial> {
  const { certFile, keyFile } = options;
  if (!certFile !== !keyFile) {
    throw new StartupError(
      "IOT_MQTT_TLS_CERT and IOT_MQTT_TLS_KEY must be set together (or both left unset to have the service CA issue the listener certificate)",
    );
  }
  const configured =
    certFile && keyFile
      ? { certPem: readPem(certFile, "IOT_MQTT_TLS_CERT"), keyPem: readPem(keyFile, "IOT_MQTT_TLS_KEY") }
      : undefined;
  if (configured) {
    try {
      createSecureContext({ cert: configured.certPem, key: configured.keyPem });
    } catch (err) {
      throw new StartupError(
        `IOT_MQTT_TLS_CERT / IOT_MQTT_TLS_KEY: not a usable certificate and matching key (${(err as Error).message})`,
      );
    }
    if (!options.needCa) return { ...configured, caPem: "" };
  }
  const { keyPem, csrPem } = await makeListenerCsr(options.hostnames);
  options.logger.info(
    { hostnames: options.hostnames },
    configured ? "asking the registry for the service CA" : "asking the registry for a listener certificate",
  );
  try {
    const issued = await options.registry.issueListenerCertificate(csrPem, options.hostnames);
    return configured
      ? { ...configured, caPem: issued.caPem }
      : { certPem: issued.certPem, keyPem, caPem: issued.caPem };
  } catch (err) {
    if (err instanceof AdapterError && err.code === "REQUEST_REJECTED")
      throw new StartupError(
        `${err.message} (hostnames ${options.hostnames.join(", ")}; check IOT_PUBLIC_HOST and IOT_MQTT_HOST)`,
      );
    throw err;
  }
}
