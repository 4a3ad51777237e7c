import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt, { type IClientOptions, type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { refusal } from "../packages/adapters/mqtt/src/transport/test-refusal.js";
import { bundleEntry } from "../scripts/bundle-entry.js";
import { freePort, startTestFleet, type TestFleet } from "./helpers.js";

type Device = { id: number; deviceID: string; deviceUsername: string; token: string };
type Cert = { id: number; CN: string; cert: string; key: string; root: string };

const base: IClientOptions = { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000 };

let t: TestFleet;
let productID: string;
let ca: string;

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "tls", cloudProtocol: 1 })).body.productID;
  ca = (await newCert("ca-source")).root;
}, 90_000);
afterAll(() => t?.close());

async function newCert(name: string, enable = 1): Promise<Cert> {
  const r = await t.api("POST", "/certs", { name, enable });
  expect(r.status).toBe(201);
  return {
    id: r.body.id,
    CN: r.body.CN,
    cert: r.body.cert.content,
    key: r.body.key.content,
    root: r.body.root.content,
  };
}

async function newDevice(name: string, extra: Record<string, unknown> = {}): Promise<Device> {
  const r = await t.api("POST", "/devices", {
    productID,
    deviceName: name,
    deviceType: 1,
    upLinkSystem: 1,
    authType: 1,
    ...extra,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as Device;
}

/** Options of a certificate device over mutual TLS: client id = deviceID, no username or password. */
const certOptions = (deviceID: string, cert: { cert: string; key: string }): IClientOptions => ({
  clientId: deviceID,
  ca,
  cert: cert.cert,
  key: cert.key,
});

/** Publishes a command through the API and resolves with what the client received. */
async function command(client: MqttClient, deviceID: string, payload: string) {
  const received = new Promise<{ topic: string; payload: string }>((resolve) =>
    client.once("message", (topic, body) => resolve({ topic, payload: body.toString() })),
  );
  const pub = await t.api("POST", "/device_publish", { deviceID, payload });
  expect(pub.body.publishStatus).toBe("1");
  return received;
}

const connectStatuses = async (d: { id: number }) =>
  (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
    (l: { connectStatus: number }) => l.connectStatus,
  );

describe("MQTT over TLS, mutual TLS and WebSocket, end to end", () => {
  it("announces every listener on its own port", () => {
    const ports = [t.mqttUrl, t.mqttsUrl, t.mqttssUrl, t.wsUrl].map((u) => new URL(u).port);
    expect(new Set(ports).size).toBe(4);
    expect(t.mqttsUrl).toMatch(/^mqtts:\/\//);
    expect(t.mqttssUrl).toMatch(/^mqtts:\/\//);
    expect(t.wsUrl).toMatch(/^ws:\/\/.*\/mqtt$/);
  });

  it("serves a token device over TLS with a server certificate the service CA verifies; its event is stored", async () => {
    const d = await newDevice("over-tls");
    const client = await mqtt.connectAsync(t.mqttsUrl, {
      ...base,
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
      ca,
    });
    try {
      await client.publishAsync("telemetry", "secure", { qos: 1 });
      const events = (await t.api("GET", `/devices/${d.id}/events`)).body;
      expect(events.items[0]).toMatchObject({ topic: "telemetry", payload: "secure", IP: "127.0.0.1" });
    } finally {
      await client.endAsync();
    }
  });

  it("refuses a TLS client that does not trust the service CA before any MQTT is spoken", async () => {
    const d = await newDevice("distrustful");
    const err = await refusal(t.mqttsUrl, { clientId: d.deviceID, username: d.deviceUsername, password: d.token });
    expect(err.message).toMatch(/self-signed certificate in certificate chain|unable to verify/);
    expect(await connectStatuses(d)).toEqual([]);
  });

  it("serves a certificate device over mutual TLS: it publishes, receives a command, and its connect log shows it online", async () => {
    const cert = await newCert("meter-cert");
    const d = await newDevice("meter", { authType: 2, certs: [cert.id] });
    const client = await mqtt.connectAsync(t.mqttssUrl, { ...base, ...certOptions(d.deviceID, cert) });
    try {
      await client.subscribeAsync("inbox", { qos: 1 });
      await client.publishAsync("telemetry", "by-cert", { qos: 1 });
      const events = (await t.api("GET", `/devices/${d.id}/events`)).body;
      expect(events.items[0]).toMatchObject({ topic: "telemetry", payload: "by-cert", deviceID: d.deviceID });
      expect(await command(client, d.deviceID, "open-valve")).toEqual({ topic: "inbox", payload: "open-valve" });
      await expect
        .poll(async () => (await t.api("GET", `/devices/${d.id}`)).body)
        .toMatchObject({ deviceStatus: 1, clientIP: "127.0.0.1" });
      expect(await connectStatuses(d)).toEqual([1]);
    } finally {
      await client.endAsync();
    }
  });

  it("refuses at the TLS layer a mutual-TLS client with no certificate, even with a valid token", async () => {
    const d = await newDevice("no-cert");
    const err = await refusal(t.mqttssUrl, { clientId: d.deviceID, username: d.deviceUsername, password: d.token, ca });
    expect(err.code).not.toBe(5);
    expect(err.message).toMatch(/certificate required|handshake failure|closed before CONNACK|ECONNRESET/i);
    expect(await connectStatuses(d)).toEqual([]);
  });

  it("refuses at the TLS layer a client certificate from another CA, even one with the CN of a real record", async () => {
    const cert = await newCert("impersonated");
    const d = await newDevice("impersonated", { authType: 2, certs: [cert.id] });
    const dir = mkdtempSync(join(tmpdir(), "other-ca-"));
    try {
      const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
      run(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-subj",
        "/CN=Other CA",
        "-days",
        "2",
      );
      run(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "dev.key",
        "-out",
        "dev.csr",
        "-subj",
        `/CN=${cert.CN}`,
      );
      run(
        "x509",
        "-req",
        "-in",
        "dev.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "dev.crt",
        "-days",
        "2",
      );
      const forged = {
        cert: readFileSync(join(dir, "dev.crt"), "utf8"),
        key: readFileSync(join(dir, "dev.key"), "utf8"),
      };
      const err = await refusal(t.mqttssUrl, certOptions(d.deviceID, forged));
      expect(err.code).not.toBe(5);
      expect(err.message).toMatch(/unknown ca|bad certificate|closed before CONNACK|ECONNRESET/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await connectStatuses(d)).toEqual([]);
  });

  it("refuses with CONNACK 5 and connect log status 2 a certificate that is disabled, unbound, or bound to another device", async () => {
    const disabled = await newCert("disabled");
    const onDisabled = await newDevice("on-disabled", { authType: 2, certs: [disabled.id] });
    expect((await t.api("PUT", `/certs/${disabled.id}`, { name: "disabled", enable: 0 })).status).toBe(200);
    expect((await refusal(t.mqttssUrl, certOptions(onDisabled.deviceID, disabled))).code).toBe(5);

    const loose = await newCert("unbound");
    const unbound = await newDevice("unbound", { authType: 2 });
    expect((await refusal(t.mqttssUrl, certOptions(unbound.deviceID, loose))).code).toBe(5);

    const others = await newCert("others");
    await newDevice("owner", { authType: 2, certs: [others.id] });
    const mine = await newCert("mine");
    const thief = await newDevice("thief", { authType: 2, certs: [mine.id] });
    expect((await refusal(t.mqttssUrl, certOptions(thief.deviceID, others))).code).toBe(5);

    for (const d of [onDisabled, unbound, thief]) {
      const logs = (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items;
      expect(logs, d.deviceID).toEqual([expect.objectContaining({ connectStatus: 2, IP: "127.0.0.1" })]);
    }
  });

  it("refuses a certificate whose client id is not a deviceID with CONNACK 5", async () => {
    const cert = await newCert("wrong-id");
    await newDevice("right-id", { authType: 2, certs: [cert.id] });
    expect((await refusal(t.mqttssUrl, certOptions("not-a-device", cert))).code).toBe(5);
  });

  it("serves a token device over WebSocket: it publishes and receives a command", async () => {
    const d = await newDevice("over-ws");
    const client = await mqtt.connectAsync(t.wsUrl, {
      ...base,
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
    });
    try {
      await client.subscribeAsync("inbox", { qos: 1 });
      await client.publishAsync("telemetry", "via-ws", { qos: 1 });
      const events = (await t.api("GET", `/devices/${d.id}/events`)).body;
      expect(events.items[0]).toMatchObject({ topic: "telemetry", payload: "via-ws", IP: "127.0.0.1" });
      expect(await command(client, d.deviceID, "ws-command")).toEqual({ topic: "inbox", payload: "ws-command" });
      await expect
        .poll(async () => (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus, {
          timeout: 5000,
        })
        .toBe(2);
    } finally {
      await client.endAsync();
    }
  });

  it("answers a plain HTTP request on the WebSocket port with 426 and a pointer to /mqtt", async () => {
    const res = await fetch(t.wsUrl.replace(/^ws:/, "http:"));
    expect(res.status).toBe(426);
    expect(await res.text()).toContain("/mqtt");
  });
});

describe("Form 2 broker addresses", () => {
  let f: TestFleet;
  let ports: Record<string, number>;
  beforeAll(async () => {
    ports = { mqtt: await freePort(), mqtts: await freePort(), mqttss: await freePort() };
    f = await startTestFleet(
      {
        IOT_API_FORM: "2",
        IOT_PUBLIC_HOST: "localhost",
        IOT_MQTT_PORT: String(ports.mqtt),
        IOT_MQTTS_PORT: String(ports.mqtts),
        IOT_MQTTSS_PORT: String(ports.mqttss),
      },
      { adapters: ["mqtt-adapter"] },
    );
  }, 90_000);
  afterAll(() => f?.close());

  it("point at the adapter's TCP, TLS and mutual-TLS listeners, and a device reaches each by that address", async () => {
    const product = (await f.api("POST", "/products", { productName: "f2", description: "Form 2 wants one" })).body
      .productID;
    const cert = (await f.api("POST", "/certs", { name: "f2", enable: 1 })).body;
    const tokenDevice = (
      await f.api("POST", "/devices", { productID: product, deviceName: "f2-token", deviceType: 0, authType: 1 })
    ).body;
    const certDevice = (
      await f.api("POST", "/devices", {
        productID: product,
        deviceName: "f2-cert",
        deviceType: 0,
        authType: 2,
        certs: [cert.id],
      })
    ).body;
    const detail = (await f.api("GET", `/devices/${tokenDevice.id}`)).body;
    expect(detail).toMatchObject({
      mqttBroker: `localhost:${ports.mqtt}`,
      mqttsBroker: `localhost:${ports.mqtts}`,
      mqttssBroker: `localhost:${ports.mqttss}`,
    });
    expect([f.mqttUrl, f.mqttsUrl, f.mqttssUrl].map((u) => Number(new URL(u).port))).toEqual([
      ports.mqtt,
      ports.mqtts,
      ports.mqttss,
    ]);

    const token = { clientId: tokenDevice.deviceID, username: tokenDevice.deviceUsername, password: tokenDevice.token };
    const tls = { ca: cert.root.content };
    // One at a time: a device's second connection would replace its first.
    for (const [url, options] of [
      [`mqtt://${detail.mqttBroker}`, token],
      [`mqtts://${detail.mqttsBroker}`, { ...token, ...tls }],
      [
        `mqtts://${detail.mqttssBroker}`,
        { ...tls, clientId: certDevice.deviceID, cert: cert.cert.content, key: cert.key.content },
      ],
    ] as const) {
      const client = await mqtt.connectAsync(url, { ...base, ...options });
      await client.publishAsync("where", url, { qos: 1 });
      await client.endAsync();
    }
    const events = async (d: { id: number }) =>
      (await f.api("GET", `/devices/${d.id}/events`)).body.items.map((e: { payload: string }) => e.payload).sort();
    expect(await events(tokenDevice)).toEqual([`mqtt://${detail.mqttBroker}`, `mqtts://${detail.mqttsBroker}`]);
    expect(await events(certDevice)).toEqual([`mqtts://${detail.mqttssBroker}`]);
  });
});

describe("an MQTT adapter whose registry is unreachable at start", () => {
  it("waits for its listener certificate, saying why, and still stops with exit code 0 on SIGTERM", async () => {
    const script = await bundleEntry("packages/adapters/mqtt/src/main.ts");
    const child = spawn(process.execPath, ["--enable-source-maps", script], {
      cwd: join(import.meta.dirname, ".."),
      env: {
        ...process.env,
        IOT_REGISTRY_URL: `127.0.0.1:${await freePort()}`,
        IOT_MQTT_PORT: "0",
        IOT_MQTTS_PORT: "0",
        IOT_MQTTSS_PORT: "0",
        IOT_MQTT_WS_PORT: "0",
        IOT_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (b: Buffer) => (stdout += b.toString()));
    const waiting = new Promise<void>((resolve) =>
      child.stderr.on("data", (b: Buffer) => {
        stderr += b.toString();
        if (stderr.includes("registry not reachable for the listener certificate; retrying")) resolve();
      }),
    );
    try {
      await waiting;
      expect(stdout).not.toContain("READY");
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      expect((await exited)[0]).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  }, 30_000);
});
