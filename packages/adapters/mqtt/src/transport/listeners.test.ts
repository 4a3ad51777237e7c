import { X509Certificate, createHash } from "node:crypto";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import pino from "pino";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FakeRegistryClient } from "@iot/adapter-core";
import { StartupError } from "@iot/config";
import { createMqttAdapter, type MqttAdapter } from "../mqtt-adapter.js";
import { DEVICES } from "../test-support.js";
import type { Listener } from "./listen.js";
import { listenerHostnames, listenerTls } from "./listener-tls.js";
import { listenTcp } from "./tcp.js";
import { createTestPki, type TestPki } from "./test-pki.js";
import { refusal } from "./test-refusal.js";
import { listenTls, type TlsMaterial } from "./tls.js";
import { listenWs } from "./ws.js";

const logger = pino({ level: "silent" });
const base: IClientOptions = { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 };

let pki: TestPki;
let registry: FakeRegistryClient;
let adapter: MqttAdapter;
let material: TlsMaterial;
let tls: Listener;
let mtls: Listener;
let ws: Listener;
const clients: MqttClient[] = [];

beforeAll(async () => {
  pki = createTestPki();
  registry = new FakeRegistryClient({ devices: Object.values(DEVICES) });
  registry.listenerCertificates = async (csrPem, hostnames) => ({
    certPem: pki.signServer(csrPem, hostnames),
    caPem: pki.caPem,
  });
  registry.start();
  adapter = await createMqttAdapter({ registry, logger, policyDefault: "allow" });
  material = await listenerTls({
    registry,
    logger,
    certFile: undefined,
    keyFile: undefined,
    hostnames: listenerHostnames("localhost", "127.0.0.1"),
    needCa: true,
  });
  tls = await listenTls(adapter, {
    port: 0,
    host: "127.0.0.1",
    material,
    mutual: false,
    envName: "IOT_MQTTS_PORT",
    logger,
  });
  mtls = await listenTls(adapter, {
    port: 0,
    host: "127.0.0.1",
    material,
    mutual: true,
    envName: "IOT_MQTTSS_PORT",
    logger,
  });
  ws = await listenWs(adapter, { port: 0, host: "127.0.0.1", envName: "IOT_MQTT_WS_PORT" });
});
afterAll(async () => {
  for (const c of clients) c.end(true);
  const closed = Promise.all([tls, mtls, ws].map((l) => l?.close()));
  await adapter?.close();
  await closed;
  pki?.cleanup();
});

async function connect(url: string, options: IClientOptions): Promise<MqttClient> {
  const client = await mqtt.connectAsync(url, { ...base, ...options });
  clients.push(client);
  return client;
}

const token = (d: { deviceId: string; username: string; token: string }) => ({
  clientId: d.deviceId,
  username: d.username,
  password: d.token,
});
const lastAttempt = () => registry.authAttempts.at(-1);

describe("MQTT over TLS (no client certificate)", () => {
  it("serves a token device that verifies the listener with the service CA, for localhost and 127.0.0.1", async () => {
    for (const host of ["127.0.0.1", "localhost"]) {
      const client = await connect(`mqtts://${host}:${tls.port}`, { ...token(DEVICES.a), ca: pki.caPem });
      await client.publishAsync("t", "x", { qos: 1 });
      expect(lastAttempt()).toMatchObject({
        clientIp: "127.0.0.1",
        credentials: { kind: "token", clientId: "dev-a", username: "user-a" },
      });
      await client.endAsync();
    }
  });

  it("asks for no client certificate on the TLS port: a device that brings one still logs in with its token", async () => {
    const own = pki.issueClient("t1:ignored");
    const client = await connect(`mqtts://127.0.0.1:${tls.port}`, {
      ...token(DEVICES.b),
      ca: pki.caPem,
      cert: own.certPem,
      key: own.keyPem,
    });
    expect(lastAttempt()?.credentials).toMatchObject({ kind: "token", username: "user-b" });
    await client.endAsync();
  });
});

describe("MQTT over mutual TLS", () => {
  it("authenticates by the verified certificate: its CN, the SHA-256 of its DER, and the client id", async () => {
    const cert = pki.issueClient("t1:abc123");
    const fingerprint = createHash("sha256").update(new X509Certificate(cert.certPem).raw).digest("hex");
    // The fake registry knows tokens only, so the attempt is refused after the adapter asked it.
    const err = await refusal(`mqtts://127.0.0.1:${mtls.port}`, {
      clientId: "dev-cert",
      username: "ignored",
      password: "ignored",
      ca: pki.caPem,
      cert: cert.certPem,
      key: cert.keyPem,
    });
    expect(err.code).toBe(5);
    expect(lastAttempt()).toEqual({
      protocol: "mqtt",
      clientIp: "127.0.0.1",
      credentials: { kind: "certificate", clientId: "dev-cert", commonName: "t1:abc123", fingerprint },
    });
  });

  it("refuses a client without a certificate, or with one from another CA, before asking the registry", async () => {
    const before = registry.authAttempts.length;
    const other = createTestPki("Other CA");
    try {
      const forged = other.issueClient("t1:abc123");
      for (const extra of [{}, { cert: forged.certPem, key: forged.keyPem }]) {
        const err = await refusal(`mqtts://127.0.0.1:${mtls.port}`, { ...token(DEVICES.a), ca: pki.caPem, ...extra });
        expect(err.code).not.toBe(5);
      }
    } finally {
      other.cleanup();
    }
    expect(registry.authAttempts.length).toBe(before);
  });
});

describe("MQTT over WebSocket", () => {
  it("serves a token device at /mqtt and reports its IP address", async () => {
    const client = await connect(`ws://127.0.0.1:${ws.port}/mqtt`, token(DEVICES.a));
    await client.publishAsync("t", "over-ws", { qos: 1 });
    expect(registry.uplinks.at(-1)).toMatchObject({ topic: "t", clientIp: "127.0.0.1" });
    await vi.waitFor(() =>
      expect(registry.events.at(-1)).toMatchObject({ type: "opened", info: { clientIp: "127.0.0.1" } }),
    );
    await client.endAsync();
  });

  it("refuses other paths and clients that offer only other subprotocols", async () => {
    const opened = (url: string, protocols: string[]) =>
      new Promise<string>((resolve) => {
        const sock = new WebSocket(url, protocols);
        sock.on("open", () => {
          sock.close();
          resolve("open");
        });
        sock.on("error", (e) => resolve(e.message));
      });
    expect(await opened(`ws://127.0.0.1:${ws.port}/other`, ["mqtt"])).toMatch(/400/);
    expect(await opened(`ws://127.0.0.1:${ws.port}/mqtt`, ["chat"])).toMatch(/400/);
    expect(await opened(`ws://127.0.0.1:${ws.port}/mqtt`, ["mqtt"])).toBe("open");
  });
});

describe("listening", () => {
  it("fails on a taken port with one line naming the port and its variable", async () => {
    const blocker = createNetServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const attempts = [
        listenTcp(adapter, { port, host: "127.0.0.1" }),
        listenTls(adapter, { port, host: "127.0.0.1", material, mutual: true, envName: "IOT_MQTTSS_PORT", logger }),
        listenWs(adapter, { port, host: "127.0.0.1", envName: "IOT_MQTT_WS_PORT" }),
      ];
      const errors = await Promise.all(
        attempts.map((p) =>
          p.then(
            () => undefined,
            (e: unknown) => e,
          ),
        ),
      );
      expect(errors.map((e) => (e as Error).message)).toEqual([
        `mqtt: port ${port} is already in use (set IOT_MQTT_PORT to another port)`,
        `mqtt over mutual TLS: port ${port} is already in use (set IOT_MQTTSS_PORT to another port)`,
        `mqtt over websocket: port ${port} is already in use (set IOT_MQTT_WS_PORT to another port)`,
      ]);
      for (const e of errors) expect(e).toBeInstanceOf(StartupError);
    } finally {
      blocker.close();
    }
  });
});
