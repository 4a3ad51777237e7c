import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./helpers.js";
import { certificateFiles, issueCertificate, type IssuedCertificate } from "./issued-certificates.js";

/**
 * A CoAP device over DTLS with a client certificate (IOT_COAPSS_PORT), end to end: real processes, libcoap's
 * coap-client-openssl and coap-client-gnutls as the device, presenting the certificate `/certs` issued. The handshake
 * is the authentication (the chain to the service CA, then the CN and fingerprint as on MQTT's mutual TLS).
 */
let t: TestFleet;
let productID: string;
let dir: string;
let n = 0;
const children: ChildProcess[] = [];

type Cert = IssuedCertificate;
interface Device {
  id: number;
  deviceID: string;
}

beforeAll(async () => {
  t = await startTestFleet({ IOT_COAP_KEEPALIVE: "30" }, { adapters: ["coap-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "coapss", cloudProtocol: 2 })).body.productID;
  dir = mkdtempSync(join(tmpdir(), "coapss-e2e-"));
}, 90_000);
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const newCert = (enable = 1): Promise<Cert> => issueCertificate(t, `c-${n++}`, enable);

async function newDevice(extra: Record<string, unknown>): Promise<Device> {
  const r = await t.api("POST", "/devices", {
    productID,
    deviceName: `coapss-${n++}`,
    deviceType: 1,
    upLinkSystem: 1,
    authType: 2,
    ...extra,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as Device;
}

/** The certificate's PEM files for libcoap's -c, -j and -R. */
function files(c: Pick<Cert, "cert" | "key" | "root">): string[] {
  const f = certificateFiles(join(dir, `f-${n++}`), c);
  return ["-c", f.cert, "-j", f.key, "-R", f.ca];
}

const url = (path: string) => `${t.coapssUrl}${path}`;
const statusOf = async (d: Device) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;
const events = async (d: Device) => (await t.api("GET", `/devices/${d.id}/events`)).body.items;
const connectStatuses = async (d: Device) =>
  (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
    (l: { connectStatus: number }) => l.connectStatus,
  );

function client(tool: string, args: string[]): { stdout: string; stderr: string; status: number } {
  const r = spawnSync(tool, args, { encoding: "utf8", timeout: 20_000 });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status ?? -1 };
}

function run(tool: string, args: string[]): { child: ChildProcess; out: () => string } {
  const child = spawn(tool, args);
  children.push(child);
  let out = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  return { child, out: () => out };
}

/** A device whose certificate is from a CA of our own making, with the CN of `cert` (a forgery). */
function forged(cert: Cert): { cert: string; key: string; root: string } {
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  run("req", "-x509", ...ec, "-keyout", "o.key", "-out", "o.crt", "-subj", "/CN=Other CA", "-days", "2");
  run("req", ...ec, "-keyout", "d.key", "-out", "d.csr", "-subj", `/CN=${cert.CN}`);
  run("x509", "-req", "-in", "d.csr", "-CA", "o.crt", "-CAkey", "o.key", "-CAcreateserial", "-out", "d.crt");
  return {
    cert: readFileSync(join(dir, "d.crt"), "utf8"),
    key: readFileSync(join(dir, "d.key"), "utf8"),
    root: cert.root,
  };
}

describe("a CoAP device over DTLS with a client certificate", () => {
  it("the adapter announces a certificate listener of its own, beside the pre-shared key one", () => {
    expect(t.coapssUrl).toMatch(/^coaps:\/\/127\.0\.0\.1:\d+$/);
    expect(t.coapssUrl).not.toBe(t.coapsUrl);
  });

  it("publishes with coap-client-openssl; the event is stored and the device's connect log shows it online", async () => {
    const cert = await newCert();
    const d = await newDevice({ certs: [cert.id] });
    const r = client("coap-client-openssl", [...files(cert), "-m", "post", "-e", '{"t":1}', url("/mqtt/telemetry")]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect((await events(d))[0]).toMatchObject({ topic: "telemetry", payload: '{"t":1}', deviceID: d.deviceID });
    expect(await connectStatuses(d)).toContain(1);
  });

  it("publishes with coap-client-gnutls, and observes its inbox there: a command arrives and is delivered", async () => {
    const cert = await newCert();
    const d = await newDevice({ certs: [cert.id] });
    const r = client("coap-client-gnutls", [...files(cert), "-m", "post", "-e", "by-gnutls", url("/mqtt/up")]);
    expect(r.stderr).toBe("");
    expect((await events(d))[0]).toMatchObject({ topic: "up", payload: "by-gnutls" });
    const observer = run("coap-client-gnutls", [...files(cert), "-m", "get", "-s", "15", url("/mqtt/inbox")]);
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "valve-open" });
    await expect.poll(observer.out, { timeout: 10_000 }).toContain("valve-open");
    await expect
      .poll(async () => (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus, {
        timeout: 5000,
      })
      .toBe(2);
  });

  it("observes with coap-client-openssl and gets a command larger than a block, block by block", async () => {
    const cert = await newCert();
    const d = await newDevice({ certs: [cert.id] });
    const observer = run("coap-client-openssl", [...files(cert), "-m", "get", "-s", "15", "-b", "512", url("/mqtt")]);
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    const command = "0123456789abcdef".repeat(100);
    await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: command });
    await expect.poll(observer.out, { timeout: 10_000 }).toContain(command);
  });

  it("refuses a disabled certificate's handshake, with a connect log of status 2", async () => {
    const cert = await newCert(0);
    const d = await newDevice({ certs: [cert.id] });
    const r = client("coap-client-openssl", [...files(cert), "-m", "post", "-e", "x", url("/mqtt/x")]);
    expect(r.stdout + r.stderr).toMatch(/bad certificate|alert/i);
    expect(await events(d)).toEqual([]);
    expect(await connectStatuses(d)).toEqual([2]);
  });

  it("refuses a certificate from another CA that copies a real certificate's CN", async () => {
    const cert = await newCert();
    const d = await newDevice({ certs: [cert.id] });
    const r = client("coap-client-gnutls", [...files(forged(cert)), "-m", "post", "-e", "x", url("/mqtt/x")]);
    expect(r.stdout + r.stderr).toMatch(/bad certificate|alert|fail/i);
    expect(await events(d)).toEqual([]);
    expect(await statusOf(d)).toBe(0);
  });

  it("refuses another tenant's certificate that is bound to none of its devices, with its tenant's connect log", async () => {
    const tenant = (await t.api("POST", "/tenants", { tenantName: `other-${n++}` })).body;
    const admin = {
      username: `other-admin-${n++}`,
      password: "other-pass-1",
      role: "admin",
      tenantID: tenant.tenantID,
    };
    expect((await t.api("POST", "/users", admin)).status).toBe(201);
    const login = await fetch(`${t.apiUrl}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: admin.username, password: admin.password }),
    });
    const token = ((await login.json()) as { token: string }).token;
    const made = await fetch(`${t.apiUrl}/certs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: "theirs", enable: 1 }),
    });
    const body = (await made.json()) as {
      CN: string;
      cert: { content: string };
      key: { content: string };
      root: { content: string };
    };
    expect(body.CN.startsWith(`${tenant.tenantID}:`)).toBe(true);
    const theirs = { cert: body.cert.content, key: body.key.content, root: body.root.content };
    const mine = await newDevice({ certs: [(await newCert()).id] });
    const r = client("coap-client-openssl", [...files(theirs), "-m", "post", "-e", "x", url("/mqtt/x")]);
    expect(r.stdout + r.stderr).toMatch(/bad certificate|alert/i);
    expect(await events(mine)).toEqual([]);
    expect(await statusOf(mine)).toBe(0);
  });

  it("ends the session within a second when the certificate is disabled, and refuses the next handshake", async () => {
    const cert = await newCert();
    const d = await newDevice({ certs: [cert.id] });
    const observer = run("coap-client-openssl", [...files(cert), "-m", "get", "-s", "30", url("/mqtt/inbox")]);
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    const at = Date.now();
    expect((await t.api("PUT", `/certs/${cert.id}`, { name: "off", enable: 0 })).status).toBe(200);
    await expect.poll(() => statusOf(d), { timeout: 3000, interval: 20 }).toBe(0);
    expect(Date.now() - at).toBeLessThan(1500);
    expect(observer.out()).not.toContain("valve");
    const again = client("coap-client-openssl", [...files(cert), "-m", "post", "-e", "x", url("/mqtt/x")]);
    expect(again.stdout + again.stderr).toMatch(/bad certificate|alert/i);
    expect(await events(d)).toEqual([]);
  });

  it("ends the session within a second when the certificate is unbound from the device, and refuses it next time", async () => {
    const [cert, spare] = [await newCert(), await newCert()];
    const d = await newDevice({ certs: [cert.id, spare.id] });
    run("coap-client-openssl", [...files(cert), "-m", "get", "-s", "30", url("/mqtt/inbox")]);
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    const at = Date.now();
    const unbound = await t.api("PUT", `/devices/${d.id}`, { certs: [spare.id] });
    expect(unbound.status, JSON.stringify(unbound.body)).toBe(200);
    await expect.poll(() => statusOf(d), { timeout: 3000, interval: 20 }).toBe(0);
    expect(Date.now() - at).toBeLessThan(1500);
    const again = client("coap-client-openssl", [...files(cert), "-m", "post", "-e", "x", url("/mqtt/x")]);
    expect(again.stdout + again.stderr).toMatch(/bad certificate|alert/i);
    expect(await events(d)).toEqual([]);
  });

  it("ends the session of a device that is blocked, and refuses its next handshake", async () => {
    const cert = await newCert();
    const d = await newDevice({ certs: [cert.id] });
    run("coap-client-gnutls", [...files(cert), "-m", "get", "-s", "30", url("/mqtt/inbox")]);
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    const at = Date.now();
    expect((await t.api("PUT", `/devices/${d.id}`, { blocked: 1 })).status).toBe(200);
    await expect.poll(() => statusOf(d), { timeout: 3000, interval: 20 }).toBe(0);
    expect(Date.now() - at).toBeLessThan(1500);
    const again = client("coap-client-openssl", [...files(cert), "-m", "post", "-e", "x", url("/mqtt/x")]);
    expect(again.stdout + again.stderr).toMatch(/bad certificate|alert/i);
    expect(await events(d)).toEqual([]);
    expect(await connectStatuses(d)).toContain(2);
  });
});
