import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mqtt, { type IClientOptions } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcess } from "../scripts/fleet.js";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/** IOT_MAX_MESSAGE_SIZE of this fleet, bytes: small, so the files stay small and the tests fast. */
const LIMIT = 65_536;
/** Far over the limit: the adapter must not read it, whatever its size. */
const BIG = 16 * 1024 * 1024;

let t: TestFleet;
let productID: string;
let httpProductID: string;
let dir: string;
let ca: string;
let n = 0;
const files: Record<"big" | "over" | "limit", string> = { big: "", over: "", limit: "" };

beforeAll(async () => {
  t = await startTestFleet({ IOT_MAX_MESSAGE_SIZE: String(LIMIT) }, { adapters: ["mqtt-adapter", "http-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "size-mqtt", cloudProtocol: 1 })).body.productID;
  httpProductID = (await t.api("POST", "/products", { productName: "size-http", cloudProtocol: 5 })).body.productID;
  ca = (await t.api("POST", "/certs", { name: "ca-source", enable: 1 })).body.root.content;
  dir = mkdtempSync(join(tmpdir(), "message-size-"));
  for (const [name, size] of [
    ["big", BIG],
    ["over", LIMIT + 1],
    ["limit", LIMIT],
  ] as const) {
    files[name] = join(dir, name);
    writeFileSync(files[name], Buffer.alloc(size, 0x61));
  }
}, 90_000);
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const newDevice = (product = productID) => t.newDevice(product, `size-${n++}`);
const events = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}/events`)).body;

/** The warnings an adapter logged with this message, parsed. */
function warnings(adapter: "mqtt-adapter" | "http-adapter", msg: string): Record<string, unknown>[] {
  const lines = t.fleet.adapters.find((a) => a.name === adapter)!.errors;
  return lines.flatMap((l) => {
    try {
      const entry = JSON.parse(l) as Record<string, unknown>;
      return entry.msg === msg ? [entry] : [];
    } catch {
      return [];
    }
  });
}

/** Runs mosquitto_pub (QoS 1, the message read from `file`); answers its exit code and how long it ran, ms. */
function mosquittoPub(url: string, d: TestDevice, file: string, extra: string[] = []) {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  const args = ["-h", hostname, "-p", port, "-i", d.deviceID, "-u", d.deviceUsername, "-P", d.token];
  const child = spawn("mosquitto_pub", [...args, ...extra, "-q", "1", "-t", "telemetry/blob", "-f", file], {
    stdio: "ignore",
  });
  return new Promise<{ code: number | null; ms: number }>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, ms: Date.now() - started });
    });
  });
}

/** curl as an HTTP device posting `file`; answers the HTTP status and how long it took, ms. */
function curlPost(d: TestDevice, file: string, extra: string[] = []) {
  const started = Date.now();
  const args = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-u", `${d.deviceUsername}:${d.token}`, ...extra];
  return new Promise<{ status: string; ms: number }>((resolve) =>
    execFile("curl", [...args, "--data-binary", `@${file}`, `${t.httpUrl}/topics/blob`], (_err, stdout) =>
      resolve({ status: String(stdout), ms: Date.now() - started }),
    ),
  );
}

describe("MQTT: a message over IOT_MAX_MESSAGE_SIZE", () => {
  it("disconnects mosquitto_pub -f within a couple of seconds, stores nothing, logs the device, serves others", async () => {
    const bystander = await newDevice();
    const other = await mqtt.connectAsync(t.mqttUrl, {
      protocolVersion: 4,
      reconnectPeriod: 0,
      clientId: bystander.deviceID,
      username: bystander.deviceUsername,
      password: bystander.token,
    });
    try {
      const d = await newDevice();
      const run = await mosquittoPub(t.mqttUrl, d, files.big);
      expect(run.code).not.toBe(0);
      expect(run.ms).toBeLessThan(3000);
      expect((await events(d)).meta.count).toBe(0);
      expect(warnings("mqtt-adapter", "message too large; closing connection")).toContainEqual(
        expect.objectContaining({ deviceId: d.deviceID, packet: "PUBLISH", limitBytes: LIMIT }),
      );
      await other.publishAsync("still/here", "yes", { qos: 1 });
      expect((await events(bystander)).items[0]).toMatchObject({ topic: "still/here", payload: "yes" });
    } finally {
      await other.endAsync();
    }
  });

  it("stores a publish of exactly the limit and refuses one a byte over", async () => {
    const d = await newDevice();
    expect((await mosquittoPub(t.mqttUrl, d, files.limit)).code).toBe(0);
    const stored = await events(d);
    expect(stored.meta.count).toBe(1);
    expect(stored.items[0].payload).toHaveLength(LIMIT);
    expect((await mosquittoPub(t.mqttUrl, d, files.over)).code).not.toBe(0);
    expect((await events(d)).meta.count).toBe(1);
    expect(warnings("mqtt-adapter", "publish refused; closing connection")).toContainEqual(
      expect.objectContaining({ deviceId: d.deviceID, reason: expect.stringMatching(/IOT_MAX_MESSAGE_SIZE/) }),
    );
  });

  it("is refused the same way over TLS (mosquitto_pub) and WebSocket (mqtt.js)", async () => {
    const d = await newDevice();
    const caFile = join(dir, "ca.pem");
    writeFileSync(caFile, ca);
    const tls = await mosquittoPub(t.mqttsUrl, d, files.big, ["--cafile", caFile]);
    expect(tls.code).not.toBe(0);
    expect(tls.ms).toBeLessThan(3000);
    const options: IClientOptions = {
      protocolVersion: 4,
      reconnectPeriod: 0,
      clientId: d.deviceID,
      username: d.deviceUsername,
      password: d.token,
    };
    const ws = await mqtt.connectAsync(t.wsUrl, options);
    const closed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
    ws.publish("telemetry/blob", Buffer.alloc(BIG, 0x61), { qos: 1 });
    await closed;
    ws.end(true);
    expect((await events(d)).meta.count).toBe(0);
    expect(
      warnings("mqtt-adapter", "message too large; closing connection").filter((w) => w.deviceId === d.deviceID),
    ).toHaveLength(2);
  });
});

describe("HTTP: a body over IOT_MAX_MESSAGE_SIZE", () => {
  it("answers curl 413 at once, declared or chunked, stores nothing, logs the device, and keeps serving", async () => {
    const d = await newDevice(httpProductID);
    const declared = await curlPost(d, files.big);
    expect(declared.status).toBe("413");
    expect(declared.ms).toBeLessThan(3000);
    const chunked = await curlPost(d, files.big, ["-H", "Transfer-Encoding: chunked"]);
    expect(chunked.status).toBe("413");
    expect(chunked.ms).toBeLessThan(3000);
    expect((await curlPost(d, files.over)).status).toBe("413");
    expect((await events(d)).meta.count).toBe(0);
    const logged = warnings("http-adapter", "message too large; refused").filter((w) => w.deviceId === d.deviceID);
    expect(logged).toEqual([
      expect.objectContaining({ declaredBytes: BIG, limitBytes: LIMIT }),
      expect.objectContaining({ receivedBytes: expect.any(Number), limitBytes: LIMIT }),
      expect.objectContaining({ declaredBytes: LIMIT + 1 }),
    ]);
    expect((await curlPost(d, files.limit)).status).toBe("204");
    const stored = await events(d);
    expect(stored.meta.count).toBe(1);
    expect(stored.items[0].payload).toHaveLength(LIMIT);
  });
});

describe("the setting", () => {
  const httpAdapter = (env: Record<string, string>) =>
    startProcess("http-adapter", "packages/adapters/http/src/main.ts", { IOT_HTTP_DEVICE_PORT: "0", ...env });

  it("stops an adapter with one line when it is over 4000000 or IOT_HTTP_MAX_BODY is still set", async () => {
    await expect(httpAdapter({ IOT_MAX_MESSAGE_SIZE: "4000001" })).rejects.toThrow(
      /exited with code 1: http-adapter: IOT_MAX_MESSAGE_SIZE="4000001": must be a whole number from 1 to 4000000$/,
    );
    await expect(httpAdapter({ IOT_HTTP_MAX_BODY: "1024" })).rejects.toThrow(
      /exited with code 1: http-adapter: IOT_HTTP_MAX_BODY is gone: set IOT_MAX_MESSAGE_SIZE, the message size limit of every adapter$/,
    );
  });
});
