/**
 * MQTT 5.0 end to end with third-party clients: Mosquitto's command-line clients (`-V mqttv5` and `-V mqttv311`),
 * Debian's python3-paho-mqtt (MQTTv5, run with /usr/bin/python3) and MQTT.js (`protocolVersion: 5`), over TCP, TLS and
 * WebSocket, against the MQTT adapter as a process. The fleet's IOT_ADAPTER_AUTH_QUEUE_LIMIT is 2, so a burst of
 * connects meets the adapter's admission control (one test's storm); the other tests connect one device at a time.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt, { type IClientOptions } from "mqtt";
import mqttPacket from "mqtt-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";
import { paho, rawV5, run } from "./mqtt5-peers.js";

let t: TestFleet;
let productID: string;
let dir: string;
/** The service CA (PEM file), which issued the TLS listeners' certificate. */
let caFile: string;
let ca: string;

beforeAll(async () => {
  t = await startTestFleet({ IOT_ADAPTER_AUTH_QUEUE_LIMIT: "2" }, { adapters: ["mqtt-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "mqtt5", cloudProtocol: 1 })).body.productID;
  ca = (await t.api("POST", "/certs", { name: "ca-source", enable: 1 })).body.root.content;
  dir = mkdtempSync(join(tmpdir(), "mqtt5-"));
  caFile = join(dir, "ca.pem");
  writeFileSync(caFile, ca);
}, 90_000);
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const hostPort = (url: string) => ({ host: "127.0.0.1", port: Number(new URL(url).port) });

const newDevice = (name: string) => t.newDevice(productID, name);
const credentials = (d: TestDevice) => ({ clientId: d.deviceID, username: d.deviceUsername, password: d.token });
const mosquittoArgs = (d: TestDevice, version: "mqttv5" | "mqttv311", url = t.mqttUrl) => [
  "-V",
  version,
  "-h",
  "127.0.0.1",
  "-p",
  String(hostPort(url).port),
  "-i",
  d.deviceID,
  "-u",
  d.deviceUsername,
  "-P",
  d.token,
  ...(url.startsWith("mqtts") ? ["--cafile", caFile] : []),
];

const events = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/events`)).body.items as { topic: string; payload: string }[];

const online = (d: TestDevice) =>
  expect.poll(async () => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus, { timeout: 10_000 }).toBe(1);

/** Sends a command through the API (QoS 1 on the device's default topic unless `topic`). */
const command = (d: TestDevice, payload: string, topic?: string) =>
  t.api("POST", "/device_publish", { deviceID: d.deviceID, payload, ...(topic ? { topic } : {}) });

const base: IClientOptions = { reconnectPeriod: 0, connectTimeout: 5000, protocolVersion: 5 };

describe("MQTT 5.0 with third-party clients, end to end", () => {
  it.each([
    ["mqttv5", "TCP", () => t.mqttUrl],
    ["mqttv311", "TCP", () => t.mqttUrl],
    ["mqttv5", "TLS", () => t.mqttsUrl],
  ] as const)(
    "mosquitto_pub and mosquitto_sub -V %s over %s publish an uplink and receive a command",
    async (version, _over, url) => {
      const d = await newDevice(`mosquitto-${version}-${_over}`);
      const pub = await run("mosquitto_pub", [
        ...mosquittoArgs(d, version, url()),
        "-q",
        "1",
        "-t",
        "telemetry",
        "-m",
        version,
      ]);
      expect(pub, pub.stderr).toMatchObject({ code: 0 });
      expect((await events(d))[0]).toMatchObject({ topic: "telemetry", payload: version });

      const sub = run("mosquitto_sub", [...mosquittoArgs(d, version, url()), "-q", "1", "-t", "inbox", "-C", "1"]);
      await online(d);
      expect((await command(d, `to-${version}`, "inbox")).body.publishStatus).toBe("1");
      expect(await sub).toMatchObject({ code: 0, stdout: `to-${version}\n` });
    },
  );

  it("mosquitto_pub -V mqttv5 is refused with 0x86 for a wrong token, -V mqttv311 with return code 5", async () => {
    const d = await newDevice("mosquitto-wrong");
    const wrong = { ...d, token: "not-the-token" };
    const v5 = await run("mosquitto_pub", [...mosquittoArgs(wrong, "mqttv5"), "-d", "-t", "t", "-m", "x"]);
    expect(v5.code).not.toBe(0);
    expect(v5.stdout + v5.stderr).toContain("received CONNACK (134)");
    const v311 = await run("mosquitto_pub", [...mosquittoArgs(wrong, "mqttv311"), "-d", "-t", "t", "-m", "x"]);
    expect(v311.code).not.toBe(0);
    expect(v311.stdout + v311.stderr).toContain("received CONNACK (5)");
  });

  it.each([
    ["TCP", "tcp", () => t.mqttUrl, false],
    ["TLS", "tcp", () => t.mqttsUrl, true],
    ["WebSocket", "websockets", () => t.wsUrl, false],
  ] as const)(
    "paho's MQTTv5 client over %s sees the CONNACK properties, publishes and receives a command",
    async (over, transport, url, tls) => {
      const d = await newDevice(`paho-${over}`);
      const where = { ...hostPort(url()), transport, ...(tls ? { ca: caFile } : {}) };
      const pub = await paho({ ...where, ...credentials(d), publish: { topic: "telemetry", payload: over } }).events;
      expect(pub).toEqual([
        {
          event: "connack",
          rc: 0,
          props: expect.objectContaining({
            TopicAliasMaximum: 32,
            ReceiveMaximum: 256,
            SharedSubscriptionAvailable: 0,
          }),
        },
        { event: "puback" },
      ]);
      expect((await events(d))[0]).toMatchObject({ topic: "telemetry", payload: over });

      const sub = paho({ ...where, ...credentials(d), subscribe: "inbox" });
      await sub.next("ready");
      expect((await command(d, `to-paho-${over}`, "inbox")).body.publishStatus).toBe("1");
      expect((await sub.events).slice(1)).toEqual([
        { event: "suback", rcs: [1] },
        { event: "ready" },
        { event: "message", topic: "inbox", payload: `to-paho-${over}` },
      ]);
    },
  );

  it("paho's MQTTv5 client is told why it is refused: 0x86 bad credentials, 0x8A blocked", async () => {
    const d = await newDevice("paho-refused");
    const where = hostPort(t.mqttUrl);
    const bad = await paho({ ...where, ...credentials(d), password: "wrong" }).events;
    expect(bad[0]).toMatchObject({ event: "connack", rc: 0x86 });
    await t.api("PUT", `/devices/${d.id}`, { blocked: 1 });
    const blocked = await paho({ ...where, ...credentials(d) }).events;
    expect(blocked[0]).toEqual({ event: "connack", rc: 0x8a, props: { ReasonString: "device blocked" } });
  });

  it.each([
    ["TCP", () => t.mqttUrl, {}],
    [
      "TLS",
      () => t.mqttsUrl,
      {
        get ca() {
          return ca;
        },
      },
    ],
    ["WebSocket", () => t.wsUrl, {}],
  ] as const)("MQTT.js with protocolVersion 5 over %s publishes and receives a command", async (over, url, extra) => {
    const d = await newDevice(`mqttjs-${over}`);
    const client = await mqtt.connectAsync(url(), { ...base, ...credentials(d), ...extra });
    try {
      await client.subscribeAsync("inbox", { qos: 1 });
      await client.publishAsync("telemetry", `js-${over}`, { qos: 1 });
      expect((await events(d))[0]).toMatchObject({ topic: "telemetry", payload: `js-${over}` });
      const got = new Promise<string>((resolve) => client.once("message", (_t, p) => resolve(p.toString())));
      expect((await command(d, `to-js-${over}`, "inbox")).body.publishStatus).toBe("1");
      expect(await got).toBe(`to-js-${over}`);
    } finally {
      await client.endAsync();
    }
  });

  it("MQTT.js with protocolVersion 5 is refused with 0x87 for another client id, 0x97 over its tenant's connection quota", async () => {
    const d = await newDevice("mqttjs-not-allowed");
    await expect(
      mqtt.connectAsync(t.mqttUrl, { ...base, ...credentials(d), clientId: "not-the-device-id" }),
    ).rejects.toMatchObject({ code: 0x87 });

    const tenant = (await t.api("POST", "/tenants", { tenantName: "Quota5", maxDevices: 2, maxConnections: 1 })).body;
    const admin = { username: "quota5-admin", password: "quota5-pass-1", role: "admin", tenantID: tenant.tenantID };
    expect((await t.api("POST", "/users", admin)).status).toBe(201);
    const as = async (token: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${t.apiUrl}${path}`, {
        method,
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, any>;
    };
    const token = (await as("", "POST", "/login", { username: admin.username, password: admin.password })).token;
    const product = (await as(token, "POST", "/products", { productName: "quota5", cloudProtocol: 1 })).productID;
    const device = { productID: product, deviceType: 1, upLinkSystem: 1, authType: 1 };
    const [first, second] = [
      (await as(token, "POST", "/devices", { ...device, deviceName: "q1" })) as TestDevice,
      (await as(token, "POST", "/devices", { ...device, deviceName: "q2" })) as TestDevice,
    ];
    const connected = await mqtt.connectAsync(t.mqttUrl, { ...base, ...credentials(first) });
    try {
      await expect(mqtt.connectAsync(t.mqttUrl, { ...base, ...credentials(second) })).rejects.toMatchObject({
        code: 0x97,
      });
      const v311 = mqtt.connectAsync(t.mqttUrl, { ...base, protocolVersion: 4, ...credentials(second) });
      await expect(v311).rejects.toMatchObject({ code: 3 });
    } finally {
      await connected.endAsync();
    }
  });

  it("MQTT.js with protocolVersion 5 over mutual TLS: a certificate device publishes and receives a command", async () => {
    const cert = (await t.api("POST", "/certs", { name: "v5-meter", enable: 1 })).body;
    const d = await t.newDevice(productID, "mtls-v5", { authType: 2, certs: [cert.id] });
    const client = await mqtt.connectAsync(t.mqttssUrl, {
      ...base,
      clientId: d.deviceID,
      ca,
      cert: cert.cert.content,
      key: cert.key.content,
    });
    try {
      await client.subscribeAsync("inbox", { qos: 1 });
      await client.publishAsync("telemetry", "by-cert-v5", { qos: 1 });
      expect((await events(d))[0]).toMatchObject({ topic: "telemetry", payload: "by-cert-v5" });
      const got = new Promise<string>((resolve) => client.once("message", (_t, p) => resolve(p.toString())));
      expect((await command(d, "to-cert-v5", "inbox")).body.publishStatus).toBe("1");
      expect(await got).toBe("to-cert-v5");
    } finally {
      await client.endAsync();
    }
  });

  it("serves a v3.1.1 device and a v5 device of one tenant side by side", async () => {
    const [old, next] = [await newDevice("side-v311"), await newDevice("side-v5")];
    const v311 = await mqtt.connectAsync(t.mqttUrl, { ...base, protocolVersion: 4, ...credentials(old) });
    const v5 = await mqtt.connectAsync(t.mqttUrl, { ...base, ...credentials(next) });
    try {
      await Promise.all([v311.subscribeAsync("inbox", { qos: 1 }), v5.subscribeAsync("inbox", { qos: 1 })]);
      await Promise.all([v311.publishAsync("up", "v311", { qos: 1 }), v5.publishAsync("up", "v5", { qos: 1 })]);
      expect((await events(old))[0]).toMatchObject({ payload: "v311" });
      expect((await events(next))[0]).toMatchObject({ payload: "v5" });
      const got = (c: mqtt.MqttClient) => new Promise<string>((r) => c.once("message", (_t, p) => r(p.toString())));
      const received = [got(v311), got(v5)];
      await Promise.all([command(old, "c-v311", "inbox"), command(next, "c-v5", "inbox")]);
      expect(await Promise.all(received)).toEqual(["c-v311", "c-v5"]);
    } finally {
      await Promise.all([v311.endAsync(), v5.endAsync()]);
    }
  });

  it("gives paho's and MQTT.js' commands on one topic a topic alias when their CONNECT allowed some", async () => {
    const [p, m] = [await newDevice("alias-paho"), await newDevice("alias-mqttjs")];
    const texts = ["c1", "c2", "c3"];
    const sub = paho({
      ...hostPort(t.mqttUrl),
      ...credentials(p),
      subscribe: "inbox",
      messages: 3,
      topicAliasMaximum: 4,
    });
    await sub.next("ready");
    // One at a time: a command issued before the first was written would carry the topic name again.
    for (const [i, text] of texts.entries()) {
      expect((await command(p, text, "inbox")).body.publishStatus).toBe("1");
      await sub.next("message", i + 1);
    }
    expect((await sub.events).filter((e) => e.event === "message")).toEqual(
      texts.map((payload, i) => ({ event: "message", topic: "inbox", payload, alias: 1, sentTopic: i ? "" : "inbox" })),
    );
    const client = await mqtt.connectAsync(t.mqttUrl, {
      ...base,
      ...credentials(m),
      properties: { topicAliasMaximum: 4 },
    });
    try {
      const got: [string, string, number | undefined][] = [];
      client.on("message", (topic, body, packet) => got.push([topic, body.toString(), packet.properties?.topicAlias]));
      await client.subscribeAsync("inbox", { qos: 1 });
      for (const [i, text] of texts.entries()) {
        expect((await command(m, text, "inbox")).body.publishStatus).toBe("1");
        await expect.poll(() => got.length, { timeout: 5000 }).toBe(i + 1);
      }
      expect(got).toEqual(texts.map((text) => ["inbox", text, 1]));
    } finally {
      await client.endAsync();
    }
  });

  it("answers a burst of MQTT 5.0 connects over the authentication queue with 0x89 server busy, the rest 0x00", async () => {
    const devices = await Promise.all(Array.from({ length: 6 }, (_, i) => newDevice(`burst-${i}`)));
    const connacks = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        rawV5(hostPort(t.mqttUrl).port, devices[i % devices.length]!).then((r) => (r.destroy(), r.connack)),
      ),
    );
    const codes = new Set(connacks.map((c) => c?.reasonCode));
    expect(codes).toContain(0x89);
    expect([...codes].every((c) => c === 0x89 || c === 0 || c === 0x8e)).toBe(true);
    const busy = connacks.find((c) => c?.reasonCode === 0x89);
    expect(busy?.properties).toEqual({ reasonString: "server busy, retry later" });
  });

  it("closes only the connection that sends bad MQTT 5.0 input, and keeps serving the others", async () => {
    const [bad, good] = [await newDevice("bad-input"), await newDevice("good-input")];
    const client = await mqtt.connectAsync(t.mqttUrl, { ...base, ...credentials(good) });
    try {
      const inputs: [Buffer, number | undefined][] = [
        // A topic alias over the maximum (32): 0x94 topic alias invalid.
        [
          mqttPacket.generate(
            {
              cmd: "publish",
              topic: "t",
              payload: Buffer.from("x"),
              qos: 0,
              dup: false,
              retain: false,
              properties: { topicAlias: 99 },
            },
            { protocolVersion: 5 },
          ),
          0x94,
        ],
        // A session expiry interval (valid in CONNECT and DISCONNECT only) in PUBLISH: 0x81 malformed packet.
        [Buffer.from([0x30, 0x0b, 0x00, 0x01, 0x74, 0x05, 0x11, 0, 0, 0, 9, 0x78, 0x78]), 0x81],
        // The content type twice: 0x82 protocol error.
        [Buffer.from([0x30, 0x0d, 0x00, 0x01, 0x74, 0x08, 0x03, 0x00, 0x01, 0x61, 0x03, 0x00, 0x01, 0x61, 0x78]), 0x82],
        // A five-byte variable byte integer as the properties length: 0x81 malformed packet.
        [Buffer.from([0x30, 0x09, 0x00, 0x01, 0x74, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00]), 0x81],
        // A PUBLISH after the client's own DISCONNECT in the same write: not read, no DISCONNECT from the adapter.
        [
          Buffer.concat([
            mqttPacket.generate({ cmd: "disconnect", reasonCode: 0 }, { protocolVersion: 5 }),
            mqttPacket.generate(
              {
                cmd: "publish",
                topic: "t",
                payload: Buffer.from("x"),
                qos: 1,
                messageId: 1,
                dup: false,
                retain: false,
              },
              { protocolVersion: 5 },
            ),
          ]),
          undefined,
        ],
      ];
      for (const [input, code] of inputs) {
        const conn = await rawV5(hostPort(t.mqttUrl).port, bad);
        expect(conn.connack).toMatchObject({ reasonCode: 0 });
        conn.socket.write(input);
        await conn.closed;
        const disconnect = conn.received.find((p) => p.cmd === "disconnect");
        if (code === undefined) expect(disconnect).toBeUndefined();
        else expect(disconnect).toMatchObject({ reasonCode: code });
        await client.publishAsync("still/served", String(code), { qos: 1 });
      }
      expect((await events(bad)).length).toBe(0);
      expect((await events(good)).length).toBe(inputs.length);
    } finally {
      await client.endAsync();
    }
  });
});
