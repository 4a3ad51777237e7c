import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "./helpers.js";
import { certificateFiles, issueCertificate, type IssuedCertificate } from "./issued-certificates.js";

/**
 * An LwM2M device in Security mode Certificate, end to end: the same DTLS port as pre-shared keys (the suites the
 * client offers decide), the certificate `/certs` issued, and the Register's endpoint (the IMEI) must be the
 * authType 2 device bound to that certificate. libcoap's coap-client-openssl registers; openssl s_client holds a
 * session for commands.
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
  IMEI: string;
}

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["lwm2m-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "lwm2m-certs", cloudProtocol: 3 })).body.productID;
  dir = mkdtempSync(join(tmpdir(), "lwm2ms-certs-"));
}, 90_000);
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const newCert = (enable = 1): Promise<Cert> => issueCertificate(t, `l-${n++}`, enable);

async function newDevice(certs: number[]): Promise<Device> {
  const IMEI = `35200000000${String(1000 + n).padStart(4, "0")}`;
  const r = await t.api("POST", "/devices", {
    productID,
    deviceName: `lwm2m-cert-${n++}`,
    deviceType: 1,
    upLinkSystem: 1,
    authType: 2,
    IMEI,
    autoSub: 0,
    certs,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return { ...(r.body as Device), IMEI };
}

/** The certificate's PEM files: certificate, key, the service CA. */
const files = (c: Cert) => certificateFiles(join(dir, `f-${n++}`), c);

/** A Register of `ep` by coap-client-openssl presenting `cert`; -v 6 prints the response code. */
function register(cert: Cert, ep: string): { stdout: string; stderr: string } {
  const f = files(cert);
  const r = spawnSync(
    "coap-client-openssl",
    [
      ...["-c", f.cert, "-j", f.key, "-R", f.ca, "-m", "post", "-v", "6", "-e", "</3/0>"],
      `${t.lwm2msUrl}/rd?ep=${ep}&lt=60&b=U`,
    ],
    { encoding: "utf8", timeout: 20_000 },
  );
  return { stdout: r.stdout, stderr: r.stderr };
}

/** openssl s_client holding a certificate session (ECDHE-ECDSA); what is written to stdin goes as application data. */
function held(cert: Cert): { child: ChildProcess; received: () => Buffer } {
  const f = files(cert);
  const child = spawn("openssl", [
    ...["s_client", "-dtls1_2", "-quiet", "-connect", new URL(t.lwm2msUrl).host],
    ...["-cert", f.cert, "-key", f.key, "-CAfile", f.ca, "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"],
  ]);
  children.push(child);
  const received: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => received.push(b));
  child.stderr.on("data", () => undefined);
  return { child, received: () => Buffer.concat(received) };
}

/** A CoAP Register (CON POST /rd?ep=<ep>&lt=60&b=U, link format `</3/0>`), as bytes (RFC 7252 §3). */
function registerDatagram(ep: string): Buffer {
  const query = Buffer.from(`ep=${ep}`);
  return Buffer.concat([
    Buffer.from([0x40, 0x02, 0x12, 0x34, 0xb2]),
    Buffer.from("rd"),
    Buffer.from([0x11, 40, 0x3d, query.length - 13]),
    query,
    Buffer.from([0x05]),
    Buffer.from("lt=60"),
    Buffer.from([0x03]),
    Buffer.from("b=U"),
    Buffer.from([0xff]),
    Buffer.from("</3/0>"),
  ]);
}

const statusOf = async (d: Device) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;
const connectStatuses = async (d: Device) =>
  (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
    (l: { connectStatus: number }) => l.connectStatus,
  );

describe("an LwM2M device with a certificate on the DTLS port", () => {
  it("registers its IMEI with the certificate bound to it, and is online", async () => {
    const cert = await newCert();
    const d = await newDevice([cert.id]);
    const r = register(cert, d.IMEI);
    expect(r.stdout).toMatch(/c:2\.01/);
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
    expect(await connectStatuses(d)).toContain(1);
  });

  it("takes a read command on a held certificate session", async () => {
    const cert = await newCert();
    const d = await newDevice([cert.id]);
    const s = held(cert);
    s.child.stdin?.write(registerDatagram(d.IMEI));
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    await expect.poll(() => s.received()[1], { timeout: 5000 }).toBe(0x41); // 2.01 Created
    const before = s.received().length;
    const sent = await t.api("POST", "/device_publish", {
      deviceID: d.deviceID,
      payload: JSON.stringify({ reqID: 1, msgType: "read", data: { path: "/3/0/0" } }),
    });
    expect(sent.body.publishStatus).toBe("1");
    await expect.poll(() => s.received().length, { timeout: 5000 }).toBeGreaterThan(before);
    const request = s.received().subarray(before);
    expect(request[1]).toBe(0x01); // GET
    expect(request.toString("latin1")).toContain("3\u00010\u00010");
  });

  it("refuses a Register of another device's endpoint with this certificate: the endpoint is not bound to it", async () => {
    const cert = await newCert();
    await newDevice([cert.id]);
    const other = await newDevice([(await newCert()).id]);
    const r = register(cert, other.IMEI);
    expect(r.stdout).not.toMatch(/c:2\.01/);
    expect(r.stdout).toMatch(/c:4\.0[13]/);
    expect(await statusOf(other)).toBe(0);
  });

  it("refuses the handshake of a disabled certificate", async () => {
    const cert = await newCert(0);
    const d = await newDevice([cert.id]);
    const r = register(cert, d.IMEI);
    expect(r.stdout).not.toMatch(/c:2\.01/);
    expect(r.stdout + r.stderr).toMatch(/bad certificate|alert/i);
    expect(await connectStatuses(d)).toEqual([2]);
  });

  it("ends the registration and DTLS session within a second when the certificate is disabled", async () => {
    const cert = await newCert();
    const d = await newDevice([cert.id]);
    const s = held(cert);
    s.child.stdin?.write(registerDatagram(d.IMEI));
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    const at = Date.now();
    expect((await t.api("PUT", `/certs/${cert.id}`, { name: "off", enable: 0 })).status).toBe(200);
    await expect.poll(() => s.child.exitCode !== null, { timeout: 3000, interval: 20 }).toBe(true);
    expect(Date.now() - at).toBeLessThan(1500);
    expect(await statusOf(d)).toBe(0);
    expect(register(cert, d.IMEI).stdout).not.toMatch(/c:2\.01/);
  });
});
