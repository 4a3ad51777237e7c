import { type ChildProcess, spawn } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { once } from "node:events";
import { afterAll, afterEach, beforeEach, describe, expect, test } from "vitest";
import type { ClientIdentity } from "./certificate-exchange.js";
import { AlertDescription } from "./messages.js";
import { createTestCa } from "./pki.test-kit.js";
import { type DtlsPeer, DtlsServer, type DtlsServerOptions } from "./udp-server.js";

const ca = createTestCa("Tenant CA");
const other = createTestCa("Other CA");
const serverCert = ca.issue("dtls-server", "IP:127.0.0.1");
const device = ca.issue("device-7");
const stranger = other.issue("device-7");
const caCert = new X509Certificate(ca.caPem);

let socket: Socket;
let server: DtlsServer;
let port: number;
const events: { kind: string; peer?: DtlsPeer; data?: Buffer; info?: unknown; alert?: number }[] = [];
const children: ChildProcess[] = [];
let waiters: (() => void)[] = [];

function until<T>(find: () => T | undefined): Promise<T> {
  return new Promise((resolve) => {
    const check = () => {
      const found = find();
      if (found === undefined) return false;
      resolve(found);
      return true;
    };
    if (!check()) waiters.push(() => void check());
  });
}
function record(e: (typeof events)[number]) {
  events.push(e);
  for (const w of waiters) w();
}

/** The adapter's part, in small: the leaf must be signed by the tenant CA; its CN names the device. */
async function checkClient(chain: Buffer[]): Promise<ClientIdentity | undefined> {
  const leaf = new X509Certificate(chain[0]!);
  if (!leaf.verify(caCert.publicKey)) return undefined;
  const cn = /CN=([^\n,]+)/.exec(leaf.subject)?.[1] ?? "";
  return { identity: Buffer.from(cn), attributes: { cn } };
}

beforeEach(async () => {
  events.length = 0;
  waiters = [];
  await listen();
});

/** Starts the server on a fresh socket with `extra` options. */
async function listen(extra: Partial<DtlsServerOptions> = {}) {
  socket = createSocket("udp4");
  server = new DtlsServer(socket, {
    certificate: { chain: serverCert.certPem, key: serverCert.keyPem },
    checkClientCertificate: checkClient,
    onData: (peer, data) => record({ kind: "data", peer, data }),
    onEstablished: (peer, info) => record({ kind: "established", peer, info }),
    onClose: (peer, reason, alert) => record({ kind: "close", peer, info: reason, alert }),
    ...extra,
  });
  socket.bind(0, "127.0.0.1");
  await once(socket, "listening");
  port = socket.address().port;
}

async function stop() {
  server.close();
  socket.close();
  await once(socket, "close");
}

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
  await stop();
});

afterAll(() => {
  ca.cleanup();
  other.cleanup();
});

function sClient(cipher: string, cert?: { certFile: string; keyFile: string }) {
  const auth = cert ? ["-cert", cert.certFile, "-key", cert.keyFile] : [];
  const args = ["s_client", "-dtls1_2", "-connect", `127.0.0.1:${port}`, ...auth, "-cipher", cipher];
  const child = spawn("openssl", args);
  children.push(child);
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  });
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  return { child, out: () => out };
}

describe("DtlsServer with certificates and openssl s_client", () => {
  test.each([
    ["ECDHE-ECDSA-AES128-GCM-SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"],
    ["ECDHE-ECDSA-AES128-CCM8", "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8"],
  ])("completes a mutually authenticated %s handshake and carries data both ways", async (cipher, suite) => {
    const { child, out } = sClient(cipher, device);
    child.stdin.write("hello over ecdhe\n");
    const established = await until(() => events.find((e) => e.kind === "established"));
    expect(established.info).toMatchObject({
      identity: Buffer.from("device-7"),
      suite,
      client: { attributes: { cn: "device-7" } },
    });
    const data = await until(() => events.find((e) => e.kind === "data"));
    expect(data.data!.toString()).toBe("hello over ecdhe\n");
    data.peer!.session.sendData(Buffer.from("hello from the server\n"));
    await until(() => (out().includes("hello from the server") ? true : undefined));
    expect(out()).toContain("Extended master secret: yes");
    expect(out()).toContain("depth=0 CN = dtls-server");
    child.stdin.end();
    const closed = await until(() => events.find((e) => e.kind === "close"));
    expect(closed.info).toBe("closed by the client");
  });

  test("fragments its certificate flight to a small MTU and openssl reassembles it", async () => {
    await stop();
    await listen({ mtu: 200 });
    const { child } = sClient("ECDHE-ECDSA-AES128-GCM-SHA256", device);
    child.stdin.write("after fragments\n");
    const data = await until(() => events.find((e) => e.kind === "data"));
    expect(data.data!.toString()).toBe("after fragments\n");
  });

  test("a client without a certificate is refused with handshake_failure", async () => {
    const { child } = sClient("ECDHE-ECDSA-AES128-GCM-SHA256");
    const closed = await until(() => events.find((e) => e.kind === "close"));
    expect(closed.alert).toBe(AlertDescription.handshakeFailure);
    const [code] = (await once(child, "exit")) as [number];
    expect(code).not.toBe(0);
    expect(events.some((e) => e.kind === "established")).toBe(false);
  });

  test("a client whose certificate another CA signed is refused with bad_certificate", async () => {
    const { child, out } = sClient("ECDHE-ECDSA-AES128-CCM8", stranger);
    const closed = await until(() => events.find((e) => e.kind === "close"));
    expect(closed.alert).toBe(AlertDescription.badCertificate);
    await once(child, "exit");
    expect(out()).toMatch(/bad certificate/i);
    expect(events.some((e) => e.kind === "established")).toBe(false);
  });
});

describe("DtlsServer with certificates and libcoap's coap-client-openssl", () => {
  test("completes a mutually authenticated handshake, checks the server against the CA, and its request arrives", async () => {
    const args = ["-c", device.certFile, "-j", device.keyFile, "-R", ca.caFile, "-m", "put", "-e", "t=22", "-B", "5"];
    const child = spawn("coap-client-openssl", [...args, `coaps://127.0.0.1:${port}/t`]);
    children.push(child);
    const established = await until(() => events.find((e) => e.kind === "established"));
    expect(established.info).toMatchObject({
      identity: Buffer.from("device-7"),
      suite: expect.stringMatching(/^TLS_ECDHE_ECDSA_/),
    });
    const data = await until(() => events.find((e) => e.kind === "data"));
    expect(data.data![0]! >> 6).toBe(1); // CoAP version 1
    expect(data.data!.toString("latin1")).toContain("t=22");
  });
});

describe("DtlsServer with both PSK and certificates", () => {
  test("a PSK client offering OpenSSL's default list gets a PSK suite, a certificate client an ECDHE_ECDSA one", async () => {
    await stop();
    await listen({ lookupPsk: () => Promise.resolve([Buffer.from("00112233445566778899aabbccddeeff", "hex")]) });
    const psk = spawn("openssl", [
      "s_client",
      "-dtls1_2",
      "-connect",
      `127.0.0.1:${port}`,
      "-psk_identity",
      "d",
      "-psk",
      "00112233445566778899aabbccddeeff",
    ]);
    children.push(psk);
    const first = await until(() => events.find((e) => e.kind === "established"));
    expect(first.info).toMatchObject({ identity: Buffer.from("d"), suite: expect.stringMatching(/^TLS_PSK_/) });
    const cert = spawn("openssl", [
      "s_client",
      "-dtls1_2",
      "-connect",
      `127.0.0.1:${port}`,
      "-cert",
      device.certFile,
      "-key",
      device.keyFile,
    ]);
    children.push(cert);
    const second = await until(() => events.filter((e) => e.kind === "established")[1]);
    expect(second.info).toMatchObject({
      identity: Buffer.from("device-7"),
      suite: expect.stringMatching(/^TLS_ECDHE_ECDSA_/),
    });
  });
});
