/**
 * Test support (not exported): a throw-away CA made with the openssl CLI, so
 * the transport tests check the adapter against certificates it did not make.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A CA on disk that signs server CSRs and issues client certificates. */
export interface TestPki {
  readonly caPem: string;
  /** Signs a CSR as a server certificate for `hostnames` (DNS names or IPs). */
  signServer(csrPem: string, hostnames: readonly string[]): string;
  /** A client certificate (clientAuth) with subject CN `cn`, and its key. */
  issueClient(cn: string): { certPem: string; keyPem: string };
  cleanup(): void;
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** Creates a CA named `name` in a temporary directory. */
export function createTestPki(name = "Test CA"): TestPki {
  const dir = mkdtempSync(join(tmpdir(), "mqtt-pki-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["pipe", "pipe", "ignore"] });
  const read = (file: string) => readFileSync(join(dir, file), "utf8");
  let serial = 0;
  openssl("req", "-x509", ...EC_KEY, "-keyout", "ca.key", "-out", "ca.crt", "-subj", `/CN=${name}`, "-days", "2");
  const sign = (csrFile: string, ext: string) => {
    const out = `cert-${++serial}.crt`;
    writeFileSync(join(dir, `ext-${serial}.cnf`), ext);
    openssl(
      "x509",
      "-req",
      "-in",
      csrFile,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "2",
      "-extfile",
      `ext-${serial}.cnf`,
      "-out",
      out,
    );
    return read(out);
  };
  return {
    caPem: read("ca.crt"),
    signServer(csrPem, hostnames) {
      writeFileSync(join(dir, "server.csr"), csrPem);
      const san = hostnames.map((h) => (/^[\d.]+$|:/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(",");
      return sign("server.csr", `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
    },
    issueClient(cn) {
      openssl("req", ...EC_KEY, "-keyout", "client.key", "-out", "client.csr", "-subj", `/CN=${cn}`);
      return { certPem: sign("client.csr", "extendedKeyUsage=clientAuth\n"), keyPem: read("client.key") };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
