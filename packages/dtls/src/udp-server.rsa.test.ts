import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { createSocket } from "node:dgram";
import { once } from "node:events";
import { afterAll, expect, test } from "vitest";
import type { EstablishedInfo } from "./session-options.js";
import { createTestCa } from "./pki.test-kit.js";
import { DtlsServer } from "./udp-server.js";

const ca = createTestCa("RSA test CA");
const serverCert = ca.issueRsa("dtls-rsa-server", "IP:127.0.0.1");
const device = ca.issue("device-9");
afterAll(() => ca.cleanup());

test("openssl s_client completes ECDHE-RSA-AES128-GCM-SHA256 against an RSA server key, verifies it and exchanges data", async () => {
  const socket = createSocket("udp4");
  const established: EstablishedInfo[] = [];
  const received: Buffer[] = [];
  const server = new DtlsServer(socket, {
    certificate: { chain: serverCert.certPem, key: serverCert.keyPem },
    checkClientCertificate: (chain) => {
      const leaf = new X509Certificate(chain[0]!);
      const cn = /CN=([^\n,]+)/.exec(leaf.subject)?.[1] ?? "";
      return Promise.resolve(
        leaf.verify(new X509Certificate(ca.caPem).publicKey) ? { identity: Buffer.from(cn) } : undefined,
      );
    },
    onEstablished: (_peer, info) => established.push(info),
    onData: (peer, data) => {
      received.push(data);
      peer.session.sendData(Buffer.from("rsa server says hi\n"));
    },
  });
  socket.bind(0, "127.0.0.1");
  await once(socket, "listening");
  const args = ["s_client", "-dtls1_2", "-connect", `127.0.0.1:${socket.address().port}`];
  const auth = ["-cert", device.certFile, "-key", device.keyFile, "-CAfile", ca.caFile, "-verify_return_error"];
  const child = spawn("openssl", [...args, ...auth, "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"]);
  let out = "";
  const reply = new Promise<void>((resolve) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("rsa server says hi")) resolve();
    });
  });
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  child.stdin.write("hello over rsa\n");
  await reply;
  expect(established).toMatchObject([
    { identity: Buffer.from("device-9"), suite: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" },
  ]);
  expect(received.map((d) => d.toString())).toEqual(["hello over rsa\n"]);
  expect(out).toContain("Cipher is ECDHE-RSA-AES128-GCM-SHA256");
  expect(out).toContain("Verify return code: 0 (ok)");
  expect(out).toMatch(/Peer signature type: RSA/);
  child.stdin.end();
  await once(child, "exit");
  server.close();
  socket.close();
});
