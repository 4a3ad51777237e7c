import { spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, test } from "vitest";
import type { EstablishedInfo } from "./session-options.js";
import { createTestCa } from "./pki.test-kit.js";
import { DtlsServer, type DtlsServerOptions } from "./udp-server.js";

const PSK_HEX = "00112233445566778899aabbccddeeff";
const ca = createTestCa("Tenant CA");
const serverCert = ca.issue("dtls-server", "IP:127.0.0.1");
const device = ca.issue("device-7");
const dir = mkdtempSync(join(tmpdir(), "dtls-sess-"));

let socket: Socket;
let server: DtlsServer;
let port: number;
let established: EstablishedInfo[] = [];

async function listen(extra: Partial<DtlsServerOptions> = {}) {
  socket = createSocket("udp4");
  server = new DtlsServer(socket, {
    lookupPsk: (id) => Promise.resolve(id.toString() === "dev1" ? [Buffer.from(PSK_HEX, "hex")] : undefined),
    certificate: { chain: serverCert.certPem, key: serverCert.keyPem },
    checkClientCertificate: (chain) => {
      const leaf = new X509Certificate(chain[0]!);
      return Promise.resolve(
        leaf.verify(new X509Certificate(ca.caPem).publicKey) ? { identity: Buffer.from("device-7") } : undefined,
      );
    },
    onData: (peer, data) => peer.session.sendData(data),
    onEstablished: (_peer, info) => established.push(info),
    ...extra,
  });
  socket.bind(0, "127.0.0.1");
  await once(socket, "listening");
  port = socket.address().port;
}

beforeEach(async () => {
  established = [];
  await listen();
});

afterEach(async () => {
  server.close();
  socket.close();
  await once(socket, "close");
});

afterAll(() => {
  ca.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** One s_client run that sends a line, waits for its echo and closes; its whole output. */
async function sClient(auth: string[], session: string[]): Promise<string> {
  const args = ["s_client", "-dtls1_2", "-connect", `127.0.0.1:${port}`, ...auth, ...session];
  const child = spawn("openssl", args);
  let out = "";
  const echoed = new Promise<void>((resolve) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("ping\n")) resolve();
    });
  });
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  child.stdin.write("ping\n");
  await echoed;
  child.stdin.end();
  await once(child, "exit");
  return out;
}

const PSK = ["-psk_identity", "dev1", "-psk", PSK_HEX, "-cipher", "PSK-AES128-CCM8"];
const ECDHE = ["-cert", device.certFile, "-key", device.keyFile, "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"];

describe("session resumption with openssl s_client -sess_out / -sess_in", () => {
  test.each([
    ["PSK", PSK, "TLS_PSK_WITH_AES_128_CCM_8", "dev1"],
    ["ECDHE-ECDSA", ECDHE, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "device-7"],
  ])("a %s session is resumed with an abbreviated handshake, EMS kept", async (_kind, auth, suite, identity) => {
    const file = join(dir, `${_kind}.pem`);
    const first = await sClient(auth, ["-sess_out", file]);
    expect(first).toMatch(/^New, TLSv1.2/m);
    expect(server.cachedSessions).toBe(1);
    const second = await sClient(auth, ["-sess_in", file]);
    expect(second).toMatch(/^Reused, TLSv1.2/m);
    expect(second).toContain("Extended master secret: yes");
    expect(established.map((e) => [e.suite, e.identity.toString(), e.resumed])).toEqual([
      [suite, identity, undefined],
      [suite, identity, true],
    ]);
  });

  test("a session the server closed, or any after forgetIdentity, takes a full handshake again", async () => {
    const file = join(dir, "closed.pem");
    await sClient(PSK, ["-sess_out", file]);
    server.forgetIdentity(Buffer.from("dev1"));
    expect(server.cachedSessions).toBe(0);
    expect(await sClient(PSK, ["-sess_in", file])).toMatch(/^New, TLSv1.2/m);
    expect(established.map((e) => e.resumed)).toEqual([undefined, undefined]);
  });

  test("with the cache off the ServerHello carries no session id and nothing is resumed", async () => {
    server.close();
    socket.close();
    await once(socket, "close");
    await listen({ sessionCache: false });
    const out = await sClient(PSK, []);
    expect(out).toMatch(/^New, TLSv1.2/m);
    expect(out).toMatch(/^\s*Session-ID: *$/m);
    expect(server.cachedSessions).toBe(0);
  });
});
