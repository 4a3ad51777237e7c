import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Test support: a throw-away P-256 CA made by the openssl CLI, its files on disk for openssl s_client's flags. */
export interface TestCa {
  caPem: string;
  caFile: string;
  /** A certificate with subject CN `cn` (and `san`, e.g. `IP:127.0.0.1`): paths and PEM of it and its key. */
  issue(cn: string, san?: string): { certFile: string; keyFile: string; certPem: string; keyPem: string };
  cleanup(): void;
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

export function createTestCa(name: string): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "dtls-pki-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["pipe", "pipe", "ignore"] });
  openssl("req", "-x509", ...EC_KEY, "-keyout", "ca.key", "-out", "ca.crt", "-subj", `/CN=${name}`, "-days", "2");
  let serial = 0;
  return {
    caPem: readFileSync(join(dir, "ca.crt"), "utf8"),
    caFile: join(dir, "ca.crt"),
    issue(cn, san) {
      const base = join(dir, `${cn}-${++serial}`);
      openssl("req", ...EC_KEY, "-keyout", `${base}.key`, "-out", `${base}.csr`, "-subj", `/CN=${cn}`);
      writeFileSync(`${base}.cnf`, `basicConstraints=CA:FALSE\n${san ? `subjectAltName=${san}\n` : ""}`);
      const sign = ["-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", `${base}.cnf`];
      openssl("x509", "-req", "-in", `${base}.csr`, ...sign, "-out", `${base}.crt`);
      const certFile = `${base}.crt`;
      const keyFile = `${base}.key`;
      return { certFile, keyFile, certPem: readFileSync(certFile, "utf8"), keyPem: readFileSync(keyFile, "utf8") };
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
