import { execFileSync } from "node:child_process";
import { generateKeyPairSync, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RegistryError } from "../errors.js";
import { engines } from "../store/test-engines.js";
import { serviceCa, signListenerCsr, type ServiceCa } from "./ca.js";
import * as x509 from "./x509.js";

const sqlite = engines.find((e) => e.name === "sqlite")!;
let ca: ServiceCa;
let dir: string;

beforeAll(async () => {
  ca = await serviceCa((await sqlite.open()).store.db);
  dir = mkdtempSync(join(tmpdir(), "listener-csr-"));
  writeFileSync(join(dir, "ca.pem"), ca.certPem);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await sqlite.cleanup();
});

/** A key and CSR made by openssl itself, as an operator's tooling would. */
function opensslCsr(keyArgs: string[]): string {
  const key = join(dir, `key-${Math.random().toString(16).slice(2)}.pem`);
  execFileSync("openssl", ["genpkey", ...keyArgs, "-out", key], { stdio: "ignore" });
  return execFileSync("openssl", ["req", "-new", "-key", key, "-subj", "/CN=ignored"], { encoding: "utf8" });
}

/** openssl's verdict on a certificate against the service CA, for TLS server use. */
function opensslVerify(certPem: string): string {
  const file = join(dir, `cert-${Math.random().toString(16).slice(2)}.pem`);
  writeFileSync(file, certPem);
  return execFileSync("openssl", ["verify", "-CAfile", join(dir, "ca.pem"), "-purpose", "sslserver", file], {
    encoding: "utf8",
  }).trim();
}

async function refusal(p: Promise<unknown>): Promise<RegistryError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RegistryError);
  return err as RegistryError;
}

describe("signListenerCsr", () => {
  it("signs an openssl-made ECDSA request into a server certificate openssl verifies against the service CA", async () => {
    const certPem = await signListenerCsr(ca, opensslCsr(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]), [
      "iot.example.com",
      "localhost",
      "127.0.0.1",
      "::1",
    ]);
    expect(opensslVerify(certPem)).toMatch(/: OK$/);
    const cert = new X509Certificate(certPem);
    expect(cert.subject).toContain("CN=iot.example.com");
    expect(cert.subjectAltName).toBe(
      "DNS:iot.example.com, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
    );
    expect(cert.checkHost("localhost")).toBe("localhost");
    expect(cert.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
  });

  it("signs RSA requests of 2048 bits too", async () => {
    const certPem = await signListenerCsr(ca, opensslCsr(["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"]), [
      "mqtt.local",
    ]);
    expect(opensslVerify(certPem)).toMatch(/: OK$/);
  });

  it("drops blank and repeated hostnames", async () => {
    const certPem = await signListenerCsr(ca, opensslCsr(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]), [
      " localhost ",
      "",
      "localhost",
      "127.0.0.1",
    ]);
    expect(new X509Certificate(certPem).subjectAltName).toBe("DNS:localhost, IP Address:127.0.0.1");
  });

  it("refuses text that is not a certificate request, naming csrPem", async () => {
    for (const bad of [
      "",
      "hello",
      "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n",
      ca.certPem,
      "x".repeat(20_000),
    ]) {
      const err = await refusal(signListenerCsr(ca, bad, ["localhost"]));
      expect(err.code).toBe("FORM_INVALID");
      expect(Object.keys(err.errors ?? {})).toEqual(["csrPem"]);
    }
  });

  it("refuses a request whose signature does not match its key", async () => {
    const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
    const other = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: "CN=x",
      keys: { publicKey: keys.publicKey, privateKey: other.privateKey },
      signingAlgorithm: { name: "ECDSA", hash: "SHA-256" },
    });
    const err = await refusal(signListenerCsr(ca, csr.toString("pem"), ["localhost"]));
    expect(err.errors).toEqual({ csrPem: "the request's signature does not match its key" });
  });

  it("refuses RSA keys shorter than 2048 bits", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const keys = {
      privateKey: await crypto.subtle.importKey(
        "pkcs8",
        privateKey.export({ type: "pkcs8", format: "der" }),
        { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
        false,
        ["sign"],
      ),
      publicKey: await crypto.subtle.importKey(
        "spki",
        publicKey.export({ type: "spki", format: "der" }),
        { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
        true,
        ["verify"],
      ),
    };
    const csr = await x509.Pkcs10CertificateRequestGenerator.create({
      name: "CN=x",
      keys,
      signingAlgorithm: { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    });
    const err = await refusal(signListenerCsr(ca, csr.toString("pem"), ["localhost"]));
    expect(err.errors).toEqual({ csrPem: "key must be ECDSA P-256/P-384 or RSA of at least 2048 bits" });
  });

  it("refuses no hostnames, wildcards, malformed names and too many names, naming hostnames", async () => {
    const csr = opensslCsr(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"]);
    for (const names of [
      [],
      [" "],
      ["*.example.com"],
      ["bad_name"],
      ["-a.example"],
      ["a..b"],
      ["x".repeat(64)],
      Array.from({ length: 33 }, (_, i) => `h${i}`),
    ]) {
      const err = await refusal(signListenerCsr(ca, csr, names));
      expect(Object.keys(err.errors ?? {}), JSON.stringify(names)).toEqual(["hostnames"]);
    }
  });
});
