import { spawn, spawnSync } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/** A CoAP device end to end: real processes and libcoap's coap-client-notls as the device. */
let t: TestFleet;
let productID: string;
let n = 0;
/** IOT_MAX_MESSAGE_SIZE of this fleet, bytes. */
const MAX_MESSAGE_SIZE = 8192;
let files: string;

beforeAll(async () => {
  t = await startTestFleet(
    { IOT_COAP_KEEPALIVE: "2", IOT_MAX_MESSAGE_SIZE: String(MAX_MESSAGE_SIZE) },
    { adapters: ["coap-adapter"] },
  );
  productID = (await t.api("POST", "/products", { productName: "coap", cloudProtocol: 2 })).body.productID;
}, 90_000);
afterAll(async () => {
  await t?.close();
  if (files) rmSync(files, { recursive: true, force: true });
});

/** Writes `content` to a new file for coap-client's `-f` and answers its path. */
function file(name: string, content: string): string {
  files ||= mkdtempSync(join(tmpdir(), "coap-e2e-"));
  const path = join(files, name);
  writeFileSync(path, content);
  return path;
}

const newDevice = () => t.newDevice(productID, `coap-${n++}`);
/** The credentials without `c=` (it is optional) as Uri-Query options. */
const userAndToken = (d: TestDevice, token = d.token) => ["-O", `15,u=${d.deviceUsername}`, "-O", `15,p=${token}`];
/** The credentials as Uri-Query options (coap-client keeps only about 100 bytes of a URI's query). */
const credentials = (d: TestDevice, token = d.token) => ["-O", `15,c=${d.deviceID}`, ...userAndToken(d, token)];
const url = (path: string) => `${t.coapUrl}${path}`;

/** Runs coap-client-notls and answers what it printed (a response code other than 2.xx goes to stderr). */
function coapClient(args: string[]): { stdout: string; stderr: string } {
  const r = spawnSync("coap-client-notls", args, { encoding: "utf8", timeout: 20_000 });
  return { stdout: r.stdout, stderr: r.stderr };
}

const statusOf = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;
const events = async (d: TestDevice) => (await t.api("GET", `/devices/${d.id}/events`)).body;
const connectStatuses = async (d: TestDevice) =>
  (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
    (l: { connectStatus: number }) => l.connectStatus,
  );

describe("a CoAP device", () => {
  it("publishes with a confirmable POST; the event is stored when the 2.04 comes, and the device is online", async () => {
    const d = await newDevice();
    const r = coapClient(["-m", "post", "-e", '{"temp":21.5}', ...credentials(d), url("/mqtt/telemetry/temp")]);
    expect(r.stderr).toBe("");
    const e = await events(d);
    expect(e.items[0]).toMatchObject({
      topic: "telemetry/temp",
      payload: '{"temp":21.5}',
      deviceID: d.deviceID,
      IP: "127.0.0.1",
    });
    await expect.poll(() => statusOf(d)).toBe(1);
  });

  /** Issues a command to `d` and waits until its observer printed it and its control log says delivered. */
  async function commandReachesObserver(d: Awaited<ReturnType<typeof newDevice>>, out: () => string) {
    expect(
      (await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "switch-on" })).body.publishStatus,
    ).toBe("1");
    await expect.poll(out, { timeout: 5000 }).toContain("switch-on");
    await expect
      .poll(async () => (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus, {
        timeout: 5000,
      })
      .toBe(2);
  }

  it("receives a command as a notification while it observes, and the control log says delivered", async () => {
    const d = await newDevice();
    const observer = spawn("coap-client-notls", ["-m", "get", "-s", "10", ...credentials(d), url("/mqtt/inbox")]);
    let out = "";
    observer.stdout.on("data", (b: Buffer) => (out += b.toString()));
    try {
      await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
      await commandReachesObserver(d, () => out);
    } finally {
      observer.kill();
    }
  });

  it("is one session whether it sends c= or not: one online log, commands to its observer, none fetched twice", async () => {
    const d = await newDevice();
    const observer = spawn("coap-client-notls", ["-m", "get", "-s", "15", ...userAndToken(d), url("/mqtt/inbox")]);
    let out = "";
    observer.stdout.on("data", (b: Buffer) => (out += b.toString()));
    try {
      await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
      expect(coapClient(["-m", "post", "-e", "1", ...credentials(d), url("/mqtt/hello")]).stderr).toBe("");
      await commandReachesObserver(d, () => out);
      // Delivered to the observer, the command is not handed out again to a plain GET of either form.
      expect(coapClient(["-m", "get", ...credentials(d), url("/mqtt/inbox")])).toEqual({ stdout: "", stderr: "" });
      expect(coapClient(["-m", "get", ...userAndToken(d), url("/mqtt/inbox")])).toEqual({ stdout: "", stderr: "" });
      expect(await connectStatuses(d)).toEqual([1]);
    } finally {
      observer.kill();
    }
    // The observation gone, the one session ends a keepAlive after the last request: one offline log.
    await expect.poll(() => statusOf(d), { timeout: 6000 }).toBe(0);
    expect(await connectStatuses(d)).toEqual([0, 1]);
  });

  it("answers 4.01 to a wrong token and records connect log status 2", async () => {
    const d = await newDevice();
    const r = coapClient(["-m", "post", "-e", "1", ...credentials(d, "not-the-token"), url("/mqtt/x")]);
    expect(r.stderr).toMatch(/^4\.01 /);
    expect(await connectStatuses(d)).toEqual([2]);
  });

  it("answers 4.03 to a publish a bound deny policy forbids, and stores nothing", async () => {
    const d = await newDevice();
    const p = (await t.api("POST", "/policies", { name: `coap-deny-${d.id}`, topic: "secret/#", access: 1, allow: 0 }))
      .body;
    await t.api("POST", `/devices/${d.id}/policies`, { ids: [p.id] });
    expect(coapClient(["-m", "post", "-e", "x", ...credentials(d), url("/mqtt/secret/plans")]).stderr).toMatch(
      /^4\.03 /,
    );
    expect((await events(d)).meta.count).toBe(0);
  });

  it("answers 4.00 to a malformed request, drops garbage, and keeps serving", async () => {
    const d = await newDevice();
    const port = Number(new URL(t.coapUrl.replace("coap:", "http:")).port);
    const socket = createSocket("udp4");
    const answers: Buffer[] = [];
    socket.on("message", (m) => answers.push(m));
    await new Promise<void>((r) => socket.bind(0, "127.0.0.1", () => r()));
    try {
      for (const garbage of [
        Buffer.from([0x41, 0x02, 0xab, 0xcd, 0x07, 0xf1, 0x00]),
        Buffer.from("not coap at all"),
        Buffer.alloc(0),
        Buffer.alloc(1200, 0xff),
      ]) {
        socket.send(garbage, port, "127.0.0.1");
      }
      await expect.poll(() => answers.length).toBe(1);
      expect(answers[0]![1]).toBe(0x80); // code 4.00
      expect(answers[0]!.readUInt16BE(2)).toBe(0xabcd);
    } finally {
      socket.close();
    }
    expect(coapClient(["-m", "put", "-e", "still here", ...credentials(d), url("/mqtt/after")]).stderr).toBe("");
    expect((await events(d)).items[0]).toMatchObject({ topic: "after", payload: "still here" });
  });

  it("goes offline with a connect log once its keepAlive passes without a request", async () => {
    const d = await newDevice();
    coapClient(["-m", "post", "-e", "1", ...credentials(d), url("/mqtt/hello")]);
    await expect.poll(() => statusOf(d)).toBe(1);
    await expect.poll(() => statusOf(d), { timeout: 6000 }).toBe(0);
    expect(await connectStatuses(d)).toEqual([0, 1]);
  });

  it("uploads a 3 KB JSON in 256-byte Block1 blocks (coap-client -b 256); the event holds the whole body", async () => {
    const d = await newDevice();
    const json = JSON.stringify({ readings: Array.from({ length: 200 }, (_, i) => ({ i, temp: 20 + i / 10 })) });
    expect(json.length).toBeGreaterThan(3000);
    const r = coapClient([
      "-m",
      "post",
      "-b",
      "256",
      "-f",
      file("big.json", json),
      ...credentials(d),
      url("/mqtt/bulk"),
    ]);
    expect(r.stderr).toBe("");
    const e = await events(d);
    expect(e.meta.count).toBe(1);
    expect(e.items[0]).toMatchObject({ topic: "bulk", payload: json });
  });

  it("answers 4.13 to a block-wise upload larger than IOT_MAX_MESSAGE_SIZE, and stores nothing", async () => {
    const d = await newDevice();
    const big = file("too-big.txt", "x".repeat(MAX_MESSAGE_SIZE + 1));
    const r = coapClient(["-m", "post", "-b", "256", "-f", big, ...credentials(d), url("/mqtt/bulk")]);
    expect(r.stderr).toMatch(/4\.13/);
    expect((await events(d)).meta.count).toBe(0);
  });

  it("downloads a command larger than a block with a plain GET, block by block (coap-client -b 256)", async () => {
    const d = await newDevice();
    coapClient(["-m", "post", "-e", "1", ...credentials(d), url("/mqtt/hello")]);
    const command = Array.from({ length: 120 }, (_, i) => `line ${i} of a long command`).join("\n");
    expect(command.length).toBeGreaterThan(3000);
    expect(
      (await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: command })).body.publishStatus,
    ).toBe("1");
    const r = coapClient(["-m", "get", "-b", "256", ...credentials(d), url("/mqtt/inbox")]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trimEnd()).toBe(command);
  });

  it("receives a command larger than a block as an observer: the first block notified, the rest fetched", async () => {
    const d = await newDevice();
    const observer = spawn("coap-client-notls", [
      "-m",
      "get",
      "-s",
      "10",
      "-b",
      "512",
      ...credentials(d),
      url("/mqtt"),
    ]);
    let out = "";
    observer.stdout.on("data", (b: Buffer) => (out += b.toString()));
    const command = "0123456789abcdef".repeat(160);
    try {
      await expect.poll(() => statusOf(d), { timeout: 5000 }).toBe(1);
      await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: command });
      await expect.poll(() => out, { timeout: 5000 }).toContain(command);
      await expect
        .poll(async () => (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus, {
          timeout: 5000,
        })
        .toBe(2);
    } finally {
      observer.kill();
    }
  });
});
