import { execFileSync } from "node:child_process";
import { connect as netConnect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestFleet, type TestDevice, type TestFleet } from "./helpers.js";

/** An HTTP device end to end: real processes, fetch and curl as the device. */
let t: TestFleet;
let productID: string;
let n = 0;

beforeAll(async () => {
  t = await startTestFleet({ IOT_HTTP_KEEPALIVE: "2", IOT_MAX_MESSAGE_SIZE: "1024" }, { adapters: ["http-adapter"] });
  productID = (await t.api("POST", "/products", { productName: "http", cloudProtocol: 5 })).body.productID;
}, 90_000);
afterAll(() => t?.close());

type Device = TestDevice;
const newDevice = () => t.newDevice(productID, `http-${n++}`);

const basic = (d: Device, token = d.token) => `Basic ${Buffer.from(`${d.deviceUsername}:${token}`).toString("base64")}`;
const publish = (d: Device, topic: string, body: string | Buffer, token = d.token) =>
  fetch(`${t.httpUrl}/topics/${topic}`, { method: "POST", headers: { authorization: basic(d, token) }, body });
const poll = (d: Device, wait: number) =>
  fetch(`${t.httpUrl}/topics/inbox?wait=${wait}`, { headers: { authorization: basic(d) } });
const statusOf = async (d: Device) => (await t.api("GET", `/devices/${d.id}`)).body.deviceStatus;
const controlLog = async (d: Device) =>
  (await t.api("GET", `/devices/${d.id}/control_logs`)).body.items[0]?.publishStatus;
const connectStatuses = async (d: Device) =>
  (await t.api("GET", `/devices/${d.id}/connect_logs`)).body.items.map(
    (l: { connectStatus: number }) => l.connectStatus,
  );

describe("an HTTP device", () => {
  it("publishes with curl; the event is stored when the answer comes, and the device is online", async () => {
    const d = await newDevice();
    const out = execFileSync("curl", [
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code}",
      "-u",
      `${d.deviceUsername}:${d.token}`,
      "--data-binary",
      '{"temp":21.5}',
      `${t.httpUrl}/topics/telemetry/temp`,
    ]).toString();
    expect(out).toBe("204");
    const events = (await t.api("GET", `/devices/${d.id}/events`)).body.items;
    expect(events[0]).toMatchObject({
      topic: "telemetry/temp",
      payload: '{"temp":21.5}',
      deviceID: d.deviceID,
      IP: "127.0.0.1",
    });
    await expect.poll(() => statusOf(d)).toBe(1);
  });

  it("gets a command issued while it long-polls at once, and the control log says delivered", async () => {
    const d = await newDevice();
    const waiting = poll(d, 20);
    await expect.poll(() => statusOf(d)).toBe(1);
    const started = Date.now();
    expect(
      (await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "switch-on" })).body.publishStatus,
    ).toBe("1");
    const res = await waiting;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-topic")).toBe("inbox");
    expect(await res.text()).toBe("switch-on");
    await expect.poll(() => controlLog(d)).toBe(2);
  });

  it("gets a command issued while it was away on its next poll, within the TTL", async () => {
    const d = await newDevice();
    expect(
      (await t.api("POST", "/device_publish", { deviceID: d.deviceID, payload: "queued" })).body.publishStatus,
    ).toBe("1");
    const res = await poll(d, 10);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("queued");
    await expect.poll(() => controlLog(d)).toBe(2);
  });

  it("answers 401 to a wrong token and records connect log status 2", async () => {
    const d = await newDevice();
    const r = await publish(d, "x", "1", "not-the-token");
    expect(r.status).toBe(401);
    expect(await connectStatuses(d)).toEqual([2]);
    expect(await statusOf(d)).toBe(0);
  });

  it("answers 403 to a publish a bound deny policy forbids, and stores nothing", async () => {
    const d = await newDevice();
    const p = (await t.api("POST", "/policies", { name: `http-deny-${d.id}`, topic: "secret/#", access: 1, allow: 0 }))
      .body;
    await t.api("POST", `/devices/${d.id}/policies`, { ids: [p.id] });
    const r = await publish(d, "secret/plans", "x");
    expect(r.status).toBe(403);
    expect(await r.json()).toMatchObject({ error: "DENIED_BY_POLICY" });
    expect((await t.api("GET", `/devices/${d.id}/events`)).body.meta.count).toBe(0);
  });

  it("answers 413 and 400 to bad bodies and topics, survives garbage on the socket, and keeps serving", async () => {
    const d = await newDevice();
    expect((await publish(d, "big", Buffer.alloc(2048))).status).toBe(413);
    expect((await publish(d, "a/%2B", "x")).status).toBe(400);
    const port = Number(new URL(t.httpUrl).port);
    const answer = await new Promise<string>((resolve) => {
      const s = netConnect(port, "127.0.0.1", () => s.write("\x00\x01 NOT HTTP AT ALL\r\n\r\n"));
      let got = "";
      s.on("data", (b) => (got += b.toString()));
      s.on("close", () => resolve(got));
      s.on("error", () => resolve(got));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect((await publish(d, "after", "still here")).status).toBe(204);
  });

  it("goes offline with a connect log once its keepAlive passes without a request", async () => {
    const d = await newDevice();
    expect((await publish(d, "hello", "1")).status).toBe(204);
    await expect.poll(() => statusOf(d)).toBe(1);
    await expect.poll(() => statusOf(d), { timeout: 6000 }).toBe(0);
    expect(await connectStatuses(d)).toEqual([0, 1]);
  });
});
