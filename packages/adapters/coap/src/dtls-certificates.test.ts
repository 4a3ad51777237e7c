import { execFileSync } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dtlsHostnames, verifyClientChain } from "./dtls-certificates.js";

const dir = mkdtempSync(join(tmpdir(), "coap-pki-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: ["pipe", "pipe", "ignore"] });
const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/** A CA made by the openssl CLI, and a certificate it issues with subject `subj`. */
function ca(name: string): { cert: X509Certificate; issue(subj: string): Buffer } {
  openssl("req", "-x509", ...EC, "-keyout", `${name}.key`, "-out", `${name}.crt`, "-subj", `/CN=${name}`, "-days", "2");
  return {
    cert: new X509Certificate(readFileSync(join(dir, `${name}.crt`))),
    issue(subj) {
      const base = `${name}-leaf-${subj.length}`;
      openssl("req", ...EC, "-keyout", `${base}.key`, "-out", `${base}.csr`, "-subj", subj);
      writeFileSync(join(dir, `${base}.cnf`), "basicConstraints=CA:FALSE\n");
      const sign = ["-CA", `${name}.crt`, "-CAkey", `${name}.key`, "-CAcreateserial", "-days", "2"];
      openssl("x509", "-req", "-in", `${base}.csr`, ...sign, "-extfile", `${base}.cnf`, "-out", `${base}.crt`);
      return new X509Certificate(readFileSync(join(dir, `${base}.crt`))).raw;
    },
  };
}

describe("verifyClientChain", () => {
  const ours = ca("service");
  const theirs = ca("other");

  it("answers the CN and the SHA-256 of a certificate the service CA issued", () => {
    const leaf = ours.issue("/CN=tenant1:abcdef");
    expect(verifyClientChain([leaf], ours.cert)).toEqual({
      commonName: "tenant1:abcdef",
      fingerprint: createHash("sha256").update(leaf).digest("hex"),
    });
  });

  it("refuses a certificate another CA issued, whatever its CN, and one outside its validity", () => {
    const forged = theirs.issue("/CN=tenant1:abcdef");
    expect(verifyClientChain([forged], ours.cert)).toBe("client certificate not issued by the service CA");
    const leaf = ours.issue("/CN=tenant1:later");
    expect(verifyClientChain([leaf], ours.cert, new Date(Date.now() + 10 * 86_400_000))).toMatch(/expired/);
    expect(verifyClientChain([Buffer.from("junk")], ours.cert)).toBe("client certificate does not parse");
  });

  it("answers CN '' for a certificate with two CNs, which no certificate record has", () => {
    const leaf = ours.issue("/CN=a/CN=b");
    expect(verifyClientChain([leaf], ours.cert)).toMatchObject({ commonName: "" });
  });
});

describe("dtlsHostnames", () => {
  it("names the public host, a specific bind address and loopback, once each", () => {
    expect(dtlsHostnames("iot.example.com", "0.0.0.0")).toEqual(["iot.example.com", "localhost", "127.0.0.1", "::1"]);
    expect(dtlsHostnames("localhost", "[10.0.0.5]")).toEqual(["localhost", "10.0.0.5", "127.0.0.1", "::1"]);
  });
});
