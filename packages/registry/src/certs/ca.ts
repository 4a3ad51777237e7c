import { createHash, createPublicKey, webcrypto, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import type { Kysely } from "kysely";
import { RegistryError } from "../errors.js";
import type { Database } from "../store/schema.js";
import * as x509 from "./x509.js";

type CryptoKey = webcrypto.CryptoKey;

/** ECDSA over P-256 with SHA-256: the CA's and every device certificate's algorithm. */
const EC = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
/** Settings keys holding the CA certificate and its PKCS#8 private key, PEM. */
const CA_CERT_SETTING = "ca.cert";
const CA_KEY_SETTING = "ca.key";
/** Validity of the CA and of device certificates, milliseconds (~10 years). */
export const CERT_VALIDITY_MS = 10 * 365 * 24 * 3600 * 1000;
/** Certificates start this long before issue, so slightly slow device clocks accept them (ms). */
const BACKDATE_MS = 5 * 60 * 1000;

/** The service's own CA: its certificate (PEM and parsed) and its signing key. */
export interface ServiceCa {
  certPem: string;
  cert: x509.X509Certificate;
  key: CryptoKey;
}

/** A certificate issued to devices: PEM texts plus the SHA-256 of the DER certificate (lower-case hex). */
export interface IssuedCert {
  certPem: string;
  /** PKCS#8 private key, PEM. */
  keyPem: string;
  fingerprint: string;
}

const pem = (der: ArrayBuffer, tag: string) => x509.PemConverter.encode(der, tag);

/** SHA-256 of a DER certificate as lower-case hex (no separators). */
export function certFingerprint(der: ArrayBuffer | Uint8Array): string {
  return createHash("sha256")
    .update(der instanceof Uint8Array ? der : new Uint8Array(der))
    .digest("hex");
}

async function importKey(keyPem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(keyPem);
  return webcrypto.subtle.importKey("pkcs8", der, EC, false, ["sign"]);
}

/** A fresh self-signed CA: basicConstraints CA (critical), keyCertSign + cRLSign, ~10 years. */
async function makeCa(now: number): Promise<{ certPem: string; keyPem: string }> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: ["IoT Device Service Root CA"] }, { O: ["IoT Device Service"] }],
    keys,
    signingAlgorithm: EC,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + CERT_VALIDITY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const keyDer = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  return { certPem: cert.toString("pem"), keyPem: pem(keyDer, "PRIVATE KEY") };
}

/**
 * Loads the service CA from settings, creating and storing it first when
 * absent. Safe when two central nodes start at once: both rows are inserted
 * in one transaction with insert-if-absent, and every node then reads back
 * the pair that won. Uncached; see {@link serviceCa}.
 */
export async function loadOrCreateCa(db: Kysely<Database>, now = Date.now()): Promise<ServiceCa> {
  const read = () =>
    db.selectFrom("settings").select(["key", "value"]).where("key", "in", [CA_CERT_SETTING, CA_KEY_SETTING]).execute();
  let rows = await read();
  if (rows.length < 2) {
    const made = await makeCa(now);
    await db.transaction().execute(async (tx) => {
      for (const [key, value] of [
        [CA_CERT_SETTING, made.certPem],
        [CA_KEY_SETTING, made.keyPem],
      ] as const) {
        await tx
          .insertInto("settings")
          .values({ key, value })
          .onConflict((oc) => oc.column("key").doNothing())
          .execute();
      }
    });
    rows = await read();
  }
  const certPem = rows.find((r) => r.key === CA_CERT_SETTING)?.value;
  const keyPem = rows.find((r) => r.key === CA_KEY_SETTING)?.value;
  if (!certPem || !keyPem) throw new Error("service CA settings are incomplete");
  return { certPem, cert: new x509.X509Certificate(certPem), key: await importKey(keyPem) };
}

const cached = new WeakMap<Kysely<Database>, Promise<ServiceCa>>();

/** The service CA of a store, loaded (or created) once per process and then kept in memory. */
export function serviceCa(db: Kysely<Database>): Promise<ServiceCa> {
  let ca = cached.get(db);
  if (!ca) {
    ca = loadOrCreateCa(db);
    cached.set(db, ca);
    ca.catch(() => cached.delete(db));
  }
  return ca;
}

/**
 * An end-entity certificate signed by the CA: not a CA, with `usage` key
 * usages and `eku` extended key usage, valid ~10 years from `now`.
 */
async function signedByCa(
  ca: ServiceCa,
  params: {
    subject: x509.JsonName;
    publicKey: x509.PublicKeyType;
    usage: x509.KeyUsageFlags;
    eku: x509.ExtendedKeyUsageType;
    extra?: x509.Extension[];
  },
  now: number,
): Promise<x509.X509Certificate> {
  return x509.X509CertificateGenerator.create({
    subject: params.subject,
    issuer: ca.cert.subjectName,
    publicKey: params.publicKey,
    signingKey: ca.key,
    signingAlgorithm: EC,
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + CERT_VALIDITY_MS),
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(params.usage, true),
      new x509.ExtendedKeyUsageExtension([params.eku]),
      ...(params.extra ?? []),
      await x509.SubjectKeyIdentifierExtension.create(params.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
    ],
  });
}

/**
 * Issues a device certificate signed by the CA: a fresh ECDSA P-256 key,
 * subject CN `commonName`, clientAuth extended key usage, digitalSignature
 * key usage, not a CA, valid ~10 years from `now`.
 */
export async function issueClientCert(ca: ServiceCa, commonName: string, now = Date.now()): Promise<IssuedCert> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ["sign", "verify"]);
  const cert = await signedByCa(
    ca,
    {
      subject: [{ CN: [commonName] }],
      publicKey: keys.publicKey,
      usage: x509.KeyUsageFlags.digitalSignature,
      eku: x509.ExtendedKeyUsage.clientAuth,
    },
    now,
  );
  const keyDer = await webcrypto.subtle.exportKey("pkcs8", keys.privateKey);
  return {
    certPem: cert.toString("pem"),
    keyPem: pem(keyDer, "PRIVATE KEY"),
    fingerprint: certFingerprint(cert.rawData),
  };
}

/** A CSR larger than this (PEM characters) is refused before parsing. */
const MAX_CSR_PEM_CHARS = 16 * 1024;
/** Most names (DNS or IP) one listener certificate may carry. */
const MAX_LISTENER_HOSTNAMES = 32;

/** A refused listener request: FORM_INVALID naming the request field at fault. */
const badRequest = (field: "csrPem" | "hostnames", message: string) =>
  new RegistryError("FORM_INVALID", { [field]: message }, `${field}: ${message}`);

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

/** A hostname as a SAN entry: an IPv4/IPv6 address, or a DNS name (no wildcards). */
function sanOf(name: string): { type: "ip" | "dns"; value: string } {
  if (isIP(name)) return { type: "ip", value: name };
  const labels = name.split(".");
  if (name.length > 253 || !labels.every((l) => DNS_LABEL.test(l))) {
    throw badRequest("hostnames", `"${name.slice(0, 80)}" is neither a DNS name nor an IP address`);
  }
  return { type: "dns", value: name.toLowerCase() };
}

/** The CSR's subject public key: ECDSA P-256/P-384 or RSA of at least 2048 bits. */
function checkedKey(csr: x509.Pkcs10CertificateRequest): void {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(csr.publicKey.rawData), format: "der", type: "spki" });
  } catch {
    throw badRequest("csrPem", "the request's public key cannot be read");
  }
  const d = key.asymmetricKeyDetails;
  const ok =
    key.asymmetricKeyType === "ec"
      ? d?.namedCurve === "prime256v1" || d?.namedCurve === "secp384r1"
      : key.asymmetricKeyType === "rsa" && (d?.modulusLength ?? 0) >= 2048;
  if (!ok) throw badRequest("csrPem", "key must be ECDSA P-256/P-384 or RSA of at least 2048 bits");
}

function parseCsr(csrPem: string): x509.Pkcs10CertificateRequest {
  if (csrPem.length > MAX_CSR_PEM_CHARS) throw badRequest("csrPem", `longer than ${MAX_CSR_PEM_CHARS} characters`);
  if (!csrPem.includes("-----BEGIN CERTIFICATE REQUEST-----"))
    throw badRequest("csrPem", "not a PEM certificate request");
  try {
    return new x509.Pkcs10CertificateRequest(csrPem);
  } catch {
    throw badRequest("csrPem", "not a valid PKCS#10 certificate request");
  }
}

/**
 * Signs an adapter's listener certificate from its PKCS#10 request, so the
 * adapter's private key never leaves it and devices trust the listener with
 * the same root they got with their certificate record. The certificate
 * names every hostname as a SAN (DNS or IP; the first is also the CN), has
 * serverAuth extended key usage, is not a CA and is valid as long as device
 * certificates. Throws RegistryError FORM_INVALID for a malformed, badly signed or
 * weak-keyed request and for bad hostnames (1..MAX_LISTENER_HOSTNAMES).
 */
export async function signListenerCsr(
  ca: ServiceCa,
  csrPem: string,
  hostnames: readonly string[],
  now = Date.now(),
): Promise<string> {
  const names = [...new Set(hostnames.map((h) => h.trim()).filter((h) => h !== ""))];
  if (names.length === 0) throw badRequest("hostnames", "at least one hostname is required");
  if (names.length > MAX_LISTENER_HOSTNAMES)
    throw badRequest("hostnames", `at most ${MAX_LISTENER_HOSTNAMES} hostnames`);
  const sans = names.map(sanOf);
  const csr = parseCsr(csrPem);
  checkedKey(csr);
  if (!(await csr.verify().catch(() => false)))
    throw badRequest("csrPem", "the request's signature does not match its key");
  const rsa = csr.publicKey.algorithm.name.startsWith("RSA");
  const cert = await signedByCa(
    ca,
    {
      subject: [{ CN: [names[0]!] }, { O: ["IoT Device Service"] }],
      publicKey: csr.publicKey,
      usage: x509.KeyUsageFlags.digitalSignature | (rsa ? x509.KeyUsageFlags.keyEncipherment : 0),
      eku: x509.ExtendedKeyUsage.serverAuth,
      extra: [new x509.SubjectAlternativeNameExtension(sans)],
    },
    now,
  );
  return cert.toString("pem");
}
