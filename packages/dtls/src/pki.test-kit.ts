import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface IssuedFiles {
  certFile: string;
  keyFile: string;
  certPem: string;
  keyPem: string;
}

/** Test support: a throw-away P-256 CA made by the openssl CLI, its files on disk for openssl s_client's flags. */
export interface TestCa {
  caPem: string;
  caFile: string;
  /** A certificate with subject CN `cn` (and `san`, e.g. `IP:127.0.0.1`): paths and PEM of it and its key. */
  issue(cn: string, san?: string): IssuedFiles;
  /** The same with a 2048-bit RSA key made by node:crypto (the CA still signs with its P-256 key). */
  issueRsa(cn: string, san?: string): IssuedFiles;
  cleanup(): void;
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

export function createTestCa(name: string): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "dtls-pki-"));
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["pipe", "pipe", "ignore"] });
  openssl("req", "-x509", ...EC_KEY, "-keyout", "ca.key", "-out", "ca.crt", "-subj", `/CN=${name}`, "-days", "2");
  let serial = 0;
  const issue = (cn: string, san: string | undefined, rsa: boolean): IssuedFiles => {
    const base = join(dir, `${cn}-${++serial}`);
    if (rsa) {
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      writeFileSync(`${base}.key`, privateKey.export({ type: "pkcs8", format: "pem" }));
      openssl("req", "-new", "-key", `${base}.key`, "-out", `${base}.csr`, "-subj", `/CN=${cn}`);
    } else {
      openssl("req", ...EC_KEY, "-keyout", `${base}.key`, "-out", `${base}.csr`, "-subj", `/CN=${cn}`);
    }
    writeFileSync(`${base}.cnf`, `basicConstraints=CA:FALSE\n${san ? `subjectAltName=${san}\n` : ""}`);
    const sign = ["-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2", "-extfile", `${base}.cnf`];
    openssl("x509", "-req", "-in", `${base}.csr`, ...sign, "-out", `${base}.crt`);
    const certFile = `${base}.crt`;
    const keyFile = `${base}.key`;
    return { certFile, keyFile, certPem: readFileSync(certFile, "utf8"), keyPem: readFileSync(keyFile, "utf8") };
  };
  return {
    caPem: readFileSync(join(dir, "ca.crt"), "utf8"),
    caFile: join(dir, "ca.crt"),
    issue: (cn, san) => issue(cn, san, false),
    issueRsa: (cn, san) => issue(cn, san, true),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
