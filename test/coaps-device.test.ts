import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * A CoAP device over DTLS with a pre-shared key, end to end: real processes, libcoap's coap-client-openssl and
 * openssl s_client as the device. Identity = the deviceUsername, key = the token (its text, or the bytes its hex
 * digits spell); the handshake is the authentication, so no request carries credentials.
 */
let t: TestFleet;
let productID: string;
let n = 0;
const children: ChildProcess[] = [];
let files: string;

beforeAll(async () => {
  t = await startTestFleet({ IOT_COAP_KEEPALIVE: "30" }, { adapters: ["coap-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "coaps", cloudProtocol: 2 })).body.productID;
}, 90_000);
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
});
afterAll(async () => {
  await t?.close();
  if (files) rmSync(files, { recursive: true, force: true });
});

/** Writes `content` to a new file for coap-client's `-f` and answers its path. */
function file(name: string, content: string): string {
  files ||= mkdtempSync(join(tmpdir(), "coaps-e2e-"));
  const path = join(files, name);
  writeFileSync(path, content);
  return path;
}

const newDevice = () => t.newDevice(productID, `coaps-${n++}`);
const url = (path: string) => `${t.coapsUrl}${path}`;
const hostPort = () => new URL(t.coapsUrl).host;

/** Runs coap-client-openssl with `identity` and `key` (text) and answers what it printed. */
function coapsClient(
  identity: string,
  key: string,
  args: string[],
): { stdout: string; stderr: string; status: number } {
  const r = spawnSync("coap-client-openssl", ["-u", identity, "-k", key, ...args], {
    encoding: "utf8",
    timeout: 20_000,
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status ?? -1 };
}

/** Starts a long-running child and collects its stdout and stderr. */
function run(command: string, args: string[]): { child: ChildProcess; out: () => string } {
  const child = spawn(command, args);
  children.push(child);
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  return { child, out: () => out };
}

/** openssl s_client's PSK handshake with `keyHex` as the key; it stays connected while stdin is open. */
const sClient = (identity: string, keyHex: string) =>
  run("openssl", [
    "s_client",
    "-dtls1_2",
    "-connect",
    hostPort(),
    "-psk_identity",
    identity,
    "-psk",
    keyHex,
    "-cipher",
    "PSK-AES128-CCM8",
  ]);

const statusOf = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;
const events = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}/events`)).body.items;
const connectStatuses = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
    (l: { connectStatus: number }) => l.connectStatus,
  );

describe("a CoAP device over DTLS with a pre-shared key", () => {
  it("publishes with the token's text as key and no credentials in the request; the event is stored", async () => {
    const d = await newDevice();
    const r = coapsClient(d.deviceUsername, d.token, ["-m", "post", "-e", '{"temp":7}', url("/mqtt/telemetry/t")]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect((await events(d))[0]).toMatchObject({ topic: "telemetry/t", payload: '{"temp":7}', deviceID: d.deviceID });
    await expect.poll(() => statusOf(d)).toBe(1);
    expect(await connectStatuses(d)).toEqual([1]);
  });

  it("completes the handshake with the bytes the token's hex digits spell as key, which opens the device's session", async () => {
    const d = await newDevice();
    expect(d.token).toMatch(/^[0-9a-f]{32}$/);
    const s = sClient(d.deviceUsername, d.token);
    await expect.poll(s.out, { timeout: 10_000 }).toMatch(/Cipher is PSK-AES128-CCM8/);
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
  });

  it("receives a command while it observes the command topic, and the control log says delivered", async () => {
    const d = await newDevice();
    const observer = run("coap-client-openssl", [
      ...["-u", d.deviceUsername, "-k", d.token, "-m", "get", "-s", "15"],
      url("/mqtt/inbox"),
    ]);
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    // The observation is registered once its GET is answered; a command before that waits in the inbox anyway.
    expect(
      (await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "valve-open" })).body.publishStatus,
    ).toBe("1");
    await expect.poll(observer.out, { timeout: 10_000 }).toContain("valve-open");
    await expect
      .poll(async () => (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus, {
        timeout: 5000,
      })
      .toBe(2);
  });

  it("uploads a 3 KB JSON in 256-byte Block1 blocks inside the session; the event holds the whole body", async () => {
    const d = await newDevice();
    const json = JSON.stringify({ readings: Array.from({ length: 200 }, (_, i) => ({ i, temp: 20 + i / 10 })) });
    expect(json.length).toBeGreaterThan(3000);
    const r = coapsClient(d.deviceUsername, d.token, [
      ...["-m", "post", "-b", "256", "-f", file("big.json", json)],
      url("/mqtt/bulk"),
    ]);
    expect(r.stderr).toBe("");
    expect((await events(d))[0]).toMatchObject({ topic: "bulk", payload: json });
  });

  it("receives a command larger than a block as an observer: the first block notified, the rest fetched", async () => {
    const d = await newDevice();
    const observer = run("coap-client-openssl", [
      ...["-u", d.deviceUsername, "-k", d.token, "-m", "get", "-s", "15", "-b", "512"],
      url("/mqtt"),
    ]);
    const command = "0123456789abcdef".repeat(160);
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: command });
    await expect.poll(observer.out, { timeout: 10_000 }).toContain(command);
    await expect
      .poll(async () => (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus, {
        timeout: 5000,
      })
      .toBe(2);
  });

  it("fails the handshake for a wrong key with decrypt_error: nothing stored, offline, a connect log of status 2", async () => {
    const d = await newDevice();
    const r = coapsClient(d.deviceUsername, "not-the-token", ["-m", "post", "-e", "1", url("/mqtt/x")]);
    expect(r.stdout).toMatch(/alert read:fatal:decrypt error/);
    expect(await events(d)).toEqual([]);
    expect(await statusOf(d)).toBe(0);
    await expect.poll(() => connectStatuses(d), { timeout: 5000 }).toEqual([2]);
    const log = (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items[0];
    expect(log).toMatchObject({ connectStatus: 2, IP: "127.0.0.1" });
  });

  it("publishes with coap-client-gnutls's PSK handshake (-u identity, -k token)", async () => {
    const d = await newDevice();
    const r = spawnSync(
      "coap-client-gnutls",
      [...["-u", d.deviceUsername, "-k", d.token, "-m", "post", "-e", "by-gnutls"], url("/mqtt/g")],
      { encoding: "utf8", timeout: 20_000 },
    );
    expect(r.stderr).toBe("");
    expect((await events(d))[0]).toMatchObject({ topic: "g", payload: "by-gnutls" });
  });

  it("fails the handshake with unknown_psk_identity for an identity that is no deviceUsername", async () => {
    const s = sClient("nobody-has-this-name", "00112233445566778899aabbccddeeff");
    await expect.poll(s.out, { timeout: 10_000 }).toMatch(/unknown psk identity/i);
  });

  it("ends the DTLS session of a device that is blocked, and refuses its next handshake", async () => {
    const d = await newDevice();
    const s = sClient(d.deviceUsername, d.token);
    await expect.poll(s.out, { timeout: 10_000 }).toMatch(/Cipher is PSK-AES128-CCM8/);
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
    const blockedAt = Date.now();
    expect((await t.api("PUT", `/devices/${d.id}`, { blocked: 1 })).status).toBe(200);
    // The server's close_notify ends s_client.
    await expect.poll(() => s.child.exitCode !== null, { timeout: 3000, interval: 20 }).toBe(true);
    expect(Date.now() - blockedAt).toBeLessThan(1500);
    expect(s.out()).toMatch(/closed|DONE/i);
    // RFC 4279 §2: a known identity the server refuses ends as a wrong key would, with decrypt_error.
    const again = coapsClient(d.deviceUsername, d.token, ["-m", "post", "-e", "1", url("/mqtt/x")]);
    expect(again.stdout).toMatch(/alert read:fatal:decrypt error/);
    expect(await events(d)).toEqual([]);
    expect(await connectStatuses(d)).toContain(2);
  });

  it("ends the DTLS session of a device whose token changed; the old key no longer completes a handshake", async () => {
    const d = await newDevice();
    const s = sClient(d.deviceUsername, d.token);
    await expect.poll(s.out, { timeout: 10_000 }).toMatch(/Cipher is PSK-AES128-CCM8/);
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
    const changedAt = Date.now();
    const token = "ffeeddccbbaa99887766554433221100";
    expect((await t.api("PUT", `/devices/${d.id}`, { token })).status).toBe(200);
    await expect.poll(() => s.child.exitCode !== null, { timeout: 3000, interval: 20 }).toBe(true);
    expect(Date.now() - changedAt).toBeLessThan(1500);
    const old = coapsClient(d.deviceUsername, d.token, ["-m", "post", "-e", "old", url("/mqtt/x")]);
    expect(old.stdout).toMatch(/decrypt error/);
    const renewed = coapsClient(d.deviceUsername, token, ["-m", "post", "-e", "new", url("/mqtt/x")]);
    expect(renewed.stderr).toBe("");
    expect((await events(d)).map((e: { payload: string }) => e.payload)).toEqual(["new"]);
  });
  it("writes at most ten connect logs a minute for the failed handshakes of one address", async () => {
    const d = await newDevice();
    for (let i = 0; i < 12; i++) {
      const r = coapsClient(d.deviceUsername, `wrong-${i}`, ["-m", "post", "-e", "1", url("/mqtt/x")]);
      expect(r.stdout).toMatch(/decrypt error/);
    }
    // Last in this file: the earlier tests' failures from this address count too, so not every one of these is logged.
    await expect.poll(() => connectStatuses(d), { timeout: 5000 }).not.toEqual([]);
    expect((await connectStatuses(d)).length).toBeLessThan(12);
  });
});
