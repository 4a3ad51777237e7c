import { X509Certificate, createPrivateKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeRegistryClient } from "@iot/adapter-core";
import { StartupError } from "@iot/config";
import { listenerHostnames, listenerTls, makeListenerCsr, type ListenerTlsOptions } from "./listener-tls.js";
import { createTestPki, type TestPki } from "./test-pki.js";

const logger = pino({ level: "silent" });
let pki: TestPki;
let dir: string;

beforeAll(() => {
  pki = createTestPki();
  dir = mkdtempSync(join(tmpdir(), "listener-tls-"));
});
afterAll(() => {
  pki.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A fake registry whose listener certificates the test CA signs; `asked` counts the requests. */
function signingRegistry() {
  const registry = new FakeRegistryClient();
  const asked: string[][] = [];
  registry.listenerCertificates = async (csrPem, hostnames) => {
    asked.push([...hostnames]);
    return { certPem: pki.signServer(csrPem, hostnames), caPem: pki.caPem };
  };
  return { registry, asked };
}

const options = (over: Partial<ListenerTlsOptions>): ListenerTlsOptions => ({
  registry: new FakeRegistryClient(),
  logger,
  certFile: undefined,
  keyFile: undefined,
  hostnames: ["localhost"],
  needCa: true,
  ...over,
});

/** A server certificate and key written to files, as an operator would configure them. */
async function files(): Promise<{ cert: string; key: string; certPem: string; keyPem: string }> {
  const { keyPem, csrPem } = await makeListenerCsr(["iot.example.com"]);
  const certPem = pki.signServer(csrPem, ["iot.example.com"]);
  const cert = join(dir, `c-${Math.random().toString(16).slice(2)}.pem`);
  const key = join(dir, `k-${Math.random().toString(16).slice(2)}.pem`);
  writeFileSync(cert, certPem);
  writeFileSync(key, keyPem);
  return { cert, key, certPem, keyPem };
}

async function startupError(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StartupError);
  return (err as Error).message;
}

describe("listenerHostnames", () => {
  it("names the public host, a specific bind address and the loopback names once each", () => {
    expect(listenerHostnames("iot.example.com", "0.0.0.0")).toEqual([
      "iot.example.com",
      "localhost",
      "127.0.0.1",
      "::1",
    ]);
    expect(listenerHostnames("localhost", "10.1.2.3")).toEqual(["localhost", "10.1.2.3", "127.0.0.1", "::1"]);
    expect(listenerHostnames("[::1]", "::")).toEqual(["::1", "localhost", "127.0.0.1"]);
  });
});

describe("listenerTls", () => {
  it("has the registry sign a fresh key's certificate for the hostnames and keeps the key", async () => {
    const { registry, asked } = signingRegistry();
    const m = await listenerTls(options({ registry, hostnames: ["localhost", "127.0.0.1"] }));
    expect(asked).toEqual([["localhost", "127.0.0.1"]]);
    const cert = new X509Certificate(m.certPem);
    expect(cert.checkPrivateKey(createPrivateKey(m.keyPem))).toBe(true);
    expect(cert.checkIssued(new X509Certificate(m.caPem))).toBe(true);
    expect(cert.checkHost("localhost")).toBe("localhost");
  });

  it("uses configured files as they are and asks the registry only for the CA the mutual-TLS listener needs", async () => {
    const f = await files();
    const { registry, asked } = signingRegistry();
    expect(await listenerTls(options({ registry, certFile: f.cert, keyFile: f.key }))).toEqual({
      certPem: f.certPem,
      keyPem: f.keyPem,
      caPem: pki.caPem,
    });
    expect(asked).toHaveLength(1);
    // Without the mutual-TLS listener the registry is not asked at all (this fake would refuse).
    expect(await listenerTls(options({ certFile: f.cert, keyFile: f.key, needCa: false }))).toEqual({
      certPem: f.certPem,
      keyPem: f.keyPem,
      caPem: "",
    });
  });

  it("stops with one line when only one of the files is set, a file cannot be read, or the key does not match", async () => {
    const f = await files();
    const other = await files();
    expect(await startupError(listenerTls(options({ certFile: f.cert })))).toMatch(
      /^IOT_MQTT_TLS_CERT and IOT_MQTT_TLS_KEY must be set together/,
    );
    expect(await startupError(listenerTls(options({ certFile: f.cert, keyFile: join(dir, "missing.pem") })))).toBe(
      `IOT_MQTT_TLS_KEY=${join(dir, "missing.pem")}: cannot read the file (ENOENT)`,
    );
    expect(await startupError(listenerTls(options({ certFile: f.cert, keyFile: other.key })))).toMatch(
      /^IOT_MQTT_TLS_CERT \/ IOT_MQTT_TLS_KEY: not a usable certificate and matching key/,
    );
  });

  it("stops with the registry's reason when the registry refuses the request", async () => {
    expect(await startupError(listenerTls(options({ hostnames: ["localhost"] })))).toBe(
      "fake registry issues no listener certificates (hostnames localhost; check IOT_PUBLIC_HOST and IOT_MQTT_HOST)",
    );
  });
});
