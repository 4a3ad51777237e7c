import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/**
 * An LwM2M device over DTLS with a pre-shared key, end to end: real processes and libcoap's coap-client-openssl as
 * the device. Identity = the endpoint client name (the IMEI, with or without `urn:imei:`), key = the token; the
 * handshake is the authentication, and the Register's `ep` must name the same device.
 */
let t: TestFleet;
let productID: string;
let n = 0;
const children: ChildProcess[] = [];

beforeAll(async () => {
  t = await startTestFleet({}, { adapters: ["lwm2m-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "lwm2ms", cloudProtocol: 3 })).body.productID;
}, 90_000);
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill();
});
afterAll(async () => {
  await t?.close();
});

/** A new LwM2M device with a fresh 15-digit IMEI. */
async function newDevice(): Promise<TestDevice & { IMEI: string }> {
  const IMEI = `35100000000${String(1000 + n).padStart(4, "0")}`;
  const d = await t.newDevice(productID, `lwm2ms-${n++}`, { IMEI, autoSub: 0 });
  return { ...d, IMEI };
}

const rd = (query: string) => `${t.lwm2msUrl}/rd${query}`;

/** coap-client-openssl as a device with PSK `identity` and `key`; answers what it printed. */
function coaps(identity: string, key: string, args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync("coap-client-openssl", ["-u", identity, "-k", key, ...args], {
    encoding: "utf8",
    timeout: 20_000,
  });
  return { stdout: r.stdout, stderr: r.stderr };
}

/** A Register of `ep` over DTLS; the client prints the response's Location-Path with -v 6 ("rd/<id>"). */
const register = (identity: string, key: string, ep: string, extra: string[] = []) =>
  coaps(identity, key, ["-m", "post", "-v", "6", ...extra, "-e", "</1/0>,</3/0>", rd(`?ep=${ep}&lt=60&b=U`)]);

const statusOf = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;
const connectStatuses = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
    (l: { connectStatus: number }) => l.connectStatus,
  );

/**
 * openssl s_client's PSK handshake with the token's hex as the key; it stays connected while its stdin is open and
 * sends what is written there as application data.
 */
function sClient(identity: string, keyHex: string): { child: ChildProcess; out: () => string; received: () => Buffer } {
  const child = spawn("openssl", [
    ...["s_client", "-dtls1_2", "-quiet", "-connect", new URL(t.lwm2msUrl).host],
    ...["-psk_identity", identity, "-psk", keyHex, "-cipher", "PSK-AES128-CCM8"],
  ]);
  children.push(child);
  let out = "";
  const received: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => {
    received.push(b);
    out += b.toString();
  });
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  return { child, out: () => out, received: () => Buffer.concat(received) };
}

/** A CoAP Register (CON POST /rd?ep=<ep>&lt=60&b=U, link format `</3/0>`), as bytes (RFC 7252 §3). */
function registerDatagram(ep: string): Buffer {
  const query = Buffer.from(`ep=${ep}`);
  return Buffer.concat([
    Buffer.from([0x40, 0x02, 0x12, 0x34]), // CON, no token, POST, Message ID
    Buffer.from([0xb2]), // Uri-Path (11), 2 bytes
    Buffer.from("rd"),
    Buffer.from([0x11, 40]), // Content-Format (12): application/link-format
    Buffer.from([0x3d, query.length - 13]), // Uri-Query (15), extended length
    query,
    Buffer.from([0x05]),
    Buffer.from("lt=60"),
    Buffer.from([0x03]),
    Buffer.from("b=U"),
    Buffer.from([0xff]),
    Buffer.from("</3/0>"),
  ]);
}

/** A device's piggybacked 2.05 answer (text/plain `text`) to the server's CON `request`. */
function answerContent(request: Buffer, text: string): Buffer {
  const tkl = request[0]! & 0x0f;
  return Buffer.concat([
    Buffer.from([0x60 | tkl, 0x45, request[2]!, request[3]!]), // ACK, 2.05 Content, the request's Message ID
    request.subarray(4, 4 + tkl), // its token
    Buffer.from([0xc0, 0xff]), // Content-Format (12): text/plain (0 = empty value), payload marker
    Buffer.from(text),
  ]);
}

describe("an LwM2M device over DTLS with a pre-shared key", () => {
  it("registers with its IMEI as identity and token as key, is online, and de-registers", async () => {
    const d = await newDevice();
    const r = register(d.IMEI, d.token, d.IMEI);
    const location = /Location-Path:rd, Location-Path:([\w-]+)/.exec(r.stdout)?.[1];
    expect(r.stdout).toMatch(/c:2\.01/);
    expect(location).toBeTruthy();
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
    // Another session of the same device updates and de-registers its registration.
    const update = coaps(d.IMEI, d.token, ["-m", "post", "-v", "6", `${t.lwm2msUrl}/rd/${location}?lt=60`]);
    expect(update.stdout).toMatch(/c:2\.04/);
    const deregister = coaps(d.IMEI, d.token, ["-m", "delete", "-v", "6", `${t.lwm2msUrl}/rd/${location}`]);
    expect(deregister.stdout).toMatch(/c:2\.02/);
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(0);
    expect(await connectStatuses(d)).toEqual([0, 1]);
  });

  it("takes the identity with the urn:imei: prefix and a hex token as the bytes it spells", async () => {
    const d = await newDevice();
    const token = "00112233445566778899aabbccddeeff";
    expect((await t.api("PUT", `/devices/${d.id}`, { token })).status).toBe(200);
    const r = coaps(`urn:imei:${d.IMEI}`, token, [
      ...["-m", "post", "-v", "6", "-e", "</3/0>"],
      rd(`?ep=urn:imei:${d.IMEI}&lt=60&b=U`),
    ]);
    expect(r.stdout).toMatch(/c:2\.01/);
    await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
  });

  it("refuses with 4.03 a Register whose endpoint is not the session's identity", async () => {
    const d = await newDevice();
    const other = await newDevice();
    const r = register(d.IMEI, d.token, other.IMEI);
    expect(r.stdout).toMatch(/c:4\.03/);
    expect(await statusOf(other)).toBe(0);
    expect(await statusOf(d)).toBe(0);
  });

  it("fails the handshake of an unknown endpoint and of a wrong key: nothing registers", async () => {
    const d = await newDevice();
    const unknown = register("351999999999999", d.token, "351999999999999");
    expect(unknown.stdout).not.toMatch(/c:2\.01/);
    expect(unknown.stdout + unknown.stderr).toMatch(/alert|fail|error/i);
    const wrong = register(d.IMEI, "not-the-token", d.IMEI);
    expect(wrong.stdout).not.toMatch(/c:2\.01/);
    expect(wrong.stdout + wrong.stderr).toMatch(/decrypt error/i);
    expect(await statusOf(d)).toBe(0);
  });

  it("takes a read command on its DTLS session and its answer comes back as up/resp", async () => {
    const d = await newDevice();
    const held = sClient(d.IMEI, d.token);
    held.child.stdin?.write(registerDatagram(d.IMEI));
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    // s_client -quiet prints only what it decrypts: first the Register's ACK, 2.01 Created (0x41).
    await expect.poll(() => held.received()[1], { timeout: 5000 }).toBe(0x41);
    const ackLength = held.received().length;
    const sent = await t.api("POST", "/device_publish", {
      deviceID: d.deviceID,
      payload: JSON.stringify({ reqID: 1, msgType: "read", data: { path: "/3/0/0" } }),
    });
    expect(sent.body.publishStatus).toBe("1");
    // The server's GET /3/0/0 arrives decrypted on s_client's stdout; the device answers it on the same session.
    await expect.poll(() => held.received().length, { timeout: 5000 }).toBeGreaterThan(ackLength);
    const request = held.received().subarray(ackLength);
    expect(request[1]).toBe(0x01); // GET
    expect(request.toString("latin1")).toContain("3\u00010\u00010");
    held.child.stdin?.write(answerContent(request, "Open Mobile Alliance"));
    const events = async () =>
      ((await t.api("GET", `/devices/${d.id}/events?_limit=10`)).body.items as { topic: string; payload: string }[])
        .filter((e) => e.topic === "up/resp")
        .map((e) => JSON.parse(e.payload));
    await expect.poll(events, { timeout: 5000 }).toEqual([
      {
        reqID: 1,
        msgType: "read",
        data: { code: "2.05", codeMsg: "Content", content: [{ path: "/3/0/0", value: "Open Mobile Alliance" }] },
      },
    ]);
  });

  it("ends the registration and DTLS session of a device that is blocked, and refuses its next handshake", async () => {
    const d = await newDevice();
    // openssl s_client holds the DTLS session (coap-client closes it after its answer) and sends a raw Register.
    const held = sClient(d.IMEI, d.token);
    held.child.stdin?.write(registerDatagram(d.IMEI));
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    const blockedAt = Date.now();
    expect((await t.api("PUT", `/devices/${d.id}`, { blocked: 1 })).status).toBe(200);
    // The server's close_notify ends s_client.
    await expect.poll(() => held.child.exitCode !== null, { timeout: 3000, interval: 20 }).toBe(true);
    expect(Date.now() - blockedAt).toBeLessThan(1500);
    expect(await statusOf(d)).toBe(0);
    const again = register(d.IMEI, d.token, d.IMEI);
    expect(again.stdout).not.toMatch(/c:2\.01/);
    expect(await connectStatuses(d)).toContain(2);
  });

  it("ends the DTLS session of a device whose token changed; the old key no longer registers", async () => {
    const d = await newDevice();
    const held = sClient(d.IMEI, d.token);
    held.child.stdin?.write(registerDatagram(d.IMEI));
    await expect.poll(() => statusOf(d), { timeout: 10_000 }).toBe(1);
    const changedAt = Date.now();
    const token = "ffeeddccbbaa99887766554433221100";
    expect((await t.api("PUT", `/devices/${d.id}`, { token })).status).toBe(200);
    await expect.poll(() => held.child.exitCode !== null, { timeout: 3000, interval: 20 }).toBe(true);
    expect(Date.now() - changedAt).toBeLessThan(1500);
    expect(register(d.IMEI, d.token, d.IMEI).stdout).not.toMatch(/c:2\.01/);
    expect(register(d.IMEI, token, d.IMEI).stdout).toMatch(/c:2\.01/);
  });
});
