import { Agent, createServer, request, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeRegistryClient } from "@iot/adapter-core";
import { createHttpAdapter, type HttpAdapter } from "./http-adapter.js";

const device = {
  deviceIntId: 1,
  deviceId: "dev-1",
  username: "u1",
  token: "t1",
  policies: [{ id: 1, topic: "secret/#", access: 3 as const, allow: false }],
};
const auth = (user = "u1", token = "t1") => `Basic ${Buffer.from(`${user}:${token}`).toString("base64")}`;

let server: Server;
let adapter: HttpAdapter;
let registry: FakeRegistryClient;
let base: string;
let warnings: Record<string, unknown>[];

async function start(maxMessageSize = 1024, registryMaxMessageSize?: number, bufferLimit?: number) {
  registry = new FakeRegistryClient({ devices: [device], maxMessageSize: registryMaxMessageSize, bufferLimit });
  registry.start();
  warnings = [];
  adapter = createHttpAdapter({
    registry,
    logger: pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) }),
    policyDefault: "allow",
    keepAliveSeconds: 60,
    maxMessageSize,
    maxWaitSeconds: 30,
  });
  server = createServer(adapter.handle);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Resolves once `n` requests of the device wait on its commands (a long poll is in place, or gone). */
async function waitingPolls(n: number): Promise<void> {
  await vi.waitFor(() =>
    expect(adapter.leases.openLease({ kind: "token", clientId: "", username: "u1", token: "t1" })?.waiting).toBe(n),
  );
}

afterEach(async () => {
  adapter.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const post = (path: string, body: string | Buffer, authorization = auth()) =>
  fetch(base + path, { method: "POST", headers: { authorization }, body });
const get = (path: string, authorization = auth()) => fetch(base + path, { headers: { authorization } });
const json = async (r: Response) => ({
  status: r.status,
  body: (await r.json()) as { error: string; message: string },
});

describe("HTTP device adapter", () => {
  it("publishes a body to the device's topic and answers 204 only after the registry acked it", async () => {
    await start();
    registry.autoAck = false;
    let answered = false;
    const res = post("/topics/telemetry/temp", '{"t":21}').then((r) => ((answered = true), r));
    await vi.waitFor(() => expect(registry.pendingUplinks).toBe(1));
    await quietFor(50, "an answer that did not wait for the registry's ack would come within this");
    expect(answered).toBe(false);
    expect(registry.ackAll()).toBe(1);
    expect((await res).status).toBe(204);
    expect(registry.uplinks[0]).toMatchObject({
      topic: "telemetry/temp",
      deviceIntId: 1,
      clientIp: "127.0.0.1",
      qos: 1,
    });
    expect(Buffer.from(registry.uplinks[0]!.payload).toString()).toBe('{"t":21}');
  });

  it("gives a POST with an Idempotency-Key that key as resend identity, always a possible resend, and none without", async () => {
    await start();
    const withKey = (key: string) =>
      fetch(`${base}/topics/t`, {
        method: "POST",
        headers: { authorization: auth(), "idempotency-key": key },
        body: "1",
      });
    expect((await withKey("8e03978e-40d5-43e8-bc93-6894a57f9324")).status).toBe(204);
    expect((await withKey('"quoted-1"')).status).toBe(204);
    expect((await post("/topics/t", "1")).status).toBe(204);
    expect(registry.uplinks.map((u) => u.resend)).toEqual([
      { id: "http:8e03978e-40d5-43e8-bc93-6894a57f9324", maybe: true },
      { id: "http:quoted-1", maybe: true },
      undefined,
    ]);
    for (const bad of ['""', "k".repeat(129), "with space"])
      expect(await json(await withKey(bad))).toMatchObject({ status: 400, body: { error: "BAD_IDEMPOTENCY_KEY" } });
    expect(registry.uplinks).toHaveLength(3);
  });

  it("publishes each request on a keep-alive connection as the device its credentials name, after a kick too", async () => {
    await start();
    registry.addDevice({ deviceIntId: 2, deviceId: "dev-2", username: "u2", token: "t2" });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const ports = new Set<number>();
    const send = (authorization: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${base}/topics/t`, { agent, method: "POST", headers: { authorization } }, (res) => {
          ports.add(res.socket.localPort!);
          res.resume().on("end", () => resolve(res.statusCode!));
        });
        req.on("error", reject);
        req.end("1");
      });
    try {
      expect(await send(auth())).toBe(204);
      expect(await send(auth("u2", "t2"))).toBe(204);
      expect(await send(auth("u1", "wrong"))).toBe(401);
      expect(await send(auth())).toBe(204);
      registry.kick(1, "device blocked");
      expect(await send(auth())).toBe(204);
    } finally {
      agent.destroy();
    }
    expect(ports.size).toBe(1); // one connection
    expect(registry.uplinks.map((u) => u.deviceIntId)).toEqual([1, 2, 1, 1]);
    expect(registry.events.map((e) => e.type)).toEqual(["opened", "opened", "closed", "opened"]);
  });

  it("takes a topic path with dot segments or percent-encoding as the URL parser resolves and decodes it", async () => {
    await start();
    const send = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${base}${path}`, { method: "POST", headers: { authorization: auth() } }, (res) => {
          res.resume().on("end", () => resolve(res.statusCode!));
        });
        req.on("error", reject);
        req.end("1");
      });
    for (const path of ["/topics/a/./b/../c", "/topics/caf%C3%A9", "/topics/x?y=1", "/topics/m.n/o-p_q~r"])
      expect(await send(path)).toBe(204);
    expect(await send("/topics/../x")).toBe(404);
    expect(registry.uplinks.map((u) => u.topic)).toEqual(["a/c", "café", "x", "m.n/o-p_q~r"]);
  });

  // Found by `pnpm fuzz` (http-device, seed 20261123, path 338246:6:7:8:9:28:53): "//%zz" made new URL() throw.
  it("answers 400, not 500, to a request target that is no valid path", async () => {
    await start();
    const { createConnection } = await import("node:net");
    const socket = createConnection(Number(new URL(base).port), "127.0.0.1");
    socket.end("OPTIONS //%zz?wtopics/%t=1 HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n");
    let answer = "";
    for await (const chunk of socket) answer += String(chunk);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain("BAD_PATH");
  });

  it("answers 401 with a Basic challenge for missing or wrong credentials, and opens no session", async () => {
    await start();
    const none = await fetch(`${base}/topics/x`, { method: "POST", body: "1" });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Basic realm="iot-devices"');
    expect(await json(await post("/topics/x", "1", auth("u1", "wrong")))).toEqual({
      status: 401,
      body: { error: "AUTH_FAILED", message: "unknown username or wrong token" },
    });
    expect(registry.events).toEqual([]);
  });

  it("answers 403 for a publish its policies deny, 400 for a bad topic, and stores neither", async () => {
    await start();
    expect(await json(await post("/topics/secret/plans", "x"))).toMatchObject({
      status: 403,
      body: { error: "DENIED_BY_POLICY" },
    });
    expect(await json(await post("/topics/a/%2B", "x"))).toMatchObject({ status: 400, body: { error: "BAD_TOPIC" } });
    expect(await json(await post("/topics/%E0%A4%A", "x"))).toMatchObject({
      status: 400,
      body: { error: "BAD_TOPIC" },
    });
    expect(registry.uplinks).toEqual([]);
  });

  it("answers 413 for a body over the limit, declared or streamed, logs the device, and stores nothing", async () => {
    await start(16);
    const declared = await post("/topics/big", Buffer.alloc(17));
    expect(await json(declared)).toEqual({
      status: 413,
      body: { error: "TOO_LARGE", message: "the body is larger than 16 bytes (IOT_MAX_MESSAGE_SIZE)" },
    });
    const streamed = await new Promise<number>((resolve) => {
      const req = request(
        `${base}/topics/big`,
        { method: "POST", headers: { authorization: auth(), "transfer-encoding": "chunked" } },
        (res) => resolve(res.statusCode!),
      );
      req.on("error", () => undefined);
      req.write(Buffer.alloc(10));
      req.write(Buffer.alloc(10));
      req.end();
    });
    expect(streamed).toBe(413);
    expect(registry.uplinks).toEqual([]);
    const device = { deviceId: "dev-1", tenantId: "tenant-1", ip: "127.0.0.1", topic: "big", limitBytes: 16 };
    expect(warnings.filter((w) => w.msg === "message too large; refused")).toEqual([
      expect.objectContaining({ ...device, declaredBytes: 17 }),
      expect.objectContaining({ ...device, receivedBytes: 20 }),
    ]);
    expect((await post("/topics/small", Buffer.alloc(16))).status).toBe(204);
  });

  it("answers 413 from a declared Content-Length at once, without waiting for the body", async () => {
    await start(1000);
    const status = await new Promise<number>((resolve) => {
      const req = request(
        `${base}/topics/huge`,
        { method: "POST", headers: { authorization: auth(), "content-length": String(66_000_000) } },
        (res) => resolve(res.statusCode!),
      );
      req.on("error", () => undefined);
      req.write(Buffer.alloc(100)); // and nothing more: the answer must not wait for the other 65,999,900 bytes
    });
    expect(status).toBe(413);
    expect(warnings).toContainEqual(expect.objectContaining({ deviceId: "dev-1", declaredBytes: 66_000_000 }));
  });

  it("gets its 413 to a client that goes on sending a refused chunked body before it reads", async () => {
    await start(16);
    const { port } = new URL(base);
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (d: Buffer) => (answer += d.toString()));
    socket.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.pause();
    socket.write(
      `POST /topics/big HTTP/1.1\r\nhost: x\r\nauthorization: ${auth()}\r\ntransfer-encoding: chunked\r\n\r\n`,
    );
    // Past the limit, then more while the 413 is on its way: closing at once with these unread bytes sent a RST.
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 8; i++) {
      socket.write(`${chunk.length.toString(16)}\r\n`);
      socket.write(chunk);
      socket.write("\r\n");
      await quietFor(10, "chunks paced as a client uploads them, some after the 413 went out");
    }
    socket.end("0\r\n\r\n");
    // Only now does the client read, as curl does while it uploads.
    await quietFor(100, "the client reads late, as curl does while it uploads");
    socket.resume();
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(registry.uplinks).toEqual([]);
  });

  it("answers 413 when the core refuses the uplink as too large", async () => {
    await start(1000, 100);
    expect((await post("/topics/big", Buffer.alloc(101))).status).toBe(413);
    expect(registry.uplinks).toEqual([]);
  });

  it("answers 429 with Retry-After to a publish over the tenant's uplink rate, and stores only those within it", async () => {
    await start();
    registry.setTenantUplinkRate("tenant-1", 2);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await post("/topics/t", `${i}`));
    expect(answers.map((r) => r.status)).toEqual([204, 204, 429]);
    expect(answers[2]!.headers.get("retry-after")).toBe("1");
    expect(await answers[2]!.json()).toMatchObject({ error: "RATE_LIMITED" });
    expect(registry.uplinks).toHaveLength(2);
  });

  it("answers 503 with Retry-After 1 to a publish finding the uplink buffer full, and stores it when tried again with room", async () => {
    await start(1024, undefined, 1);
    registry.autoAck = false;
    // Another device's uplink holds the buffer's one place until the registry acks it.
    const held = registry.publishOther();
    const full = await post("/topics/t", "1");
    expect(full.status).toBe(503);
    expect(full.headers.get("retry-after")).toBe("1");
    expect(await full.json()).toMatchObject({ error: "BUFFER_FULL" });
    registry.ackAll();
    await held;
    registry.autoAck = true;
    expect((await post("/topics/t", "2")).status).toBe(204);
    expect(registry.uplinks.map((u) => u.topic)).toEqual(["other", "t"]);
  });

  it("answers 404 elsewhere, 405 for other methods and 400 for a bad wait", async () => {
    await start();
    expect((await get("/other")).status).toBe(404);
    const put = await fetch(`${base}/topics/x`, { method: "PUT", headers: { authorization: auth() }, body: "x" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST");
    expect((await get("/topics/inbox?wait=abc")).status).toBe(400);
    expect((await get("/topics/inbox?wait=31")).status).toBe(400);
  });

  it("answers a waiting long-poll at once when a command comes, and reports it delivered", async () => {
    await start();
    expect((await post("/topics/hello", "hi")).status).toBe(204); // opens the session
    const polled = get("/topics/inbox?wait=10");
    await waitingPolls(1);
    const outcome = registry.pushDownlink({
      id: 42,
      deviceIntId: 1,
      payload: new Uint8Array(Buffer.from("switch-on")),
    });
    const res = await polled;
    expect(res.status).toBe(200);
    expect(res.headers.get("x-topic")).toBe("inbox");
    expect(res.headers.get("x-command-id")).toBe("42");
    expect(await res.text()).toBe("switch-on");
    expect(await outcome).toEqual({ status: "DELIVERED" });
  });

  it("keeps a command that came between polls for the next one, and answers 204 when nothing comes in time", async () => {
    await start();
    expect((await get("/topics/inbox")).status).toBe(204);
    const outcome = registry.pushDownlink({ id: 7, deviceIntId: 1, payload: new Uint8Array(Buffer.from("later")) });
    const res = await get("/topics/inbox?wait=5");
    expect(await res.text()).toBe("later");
    expect(await outcome).toEqual({ status: "DELIVERED" });
    const started = Date.now();
    expect((await get("/topics/inbox?wait=1")).status).toBe(204);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("keeps a command for the next poll when the waiting device hung up first", async () => {
    await start();
    const abort = new AbortController();
    const gone = fetch(`${base}/topics/inbox?wait=10`, {
      headers: { authorization: auth() },
      signal: abort.signal,
    }).catch(() => "aborted");
    await waitingPolls(1);
    abort.abort();
    expect(await gone).toBe("aborted");
    await waitingPolls(0);
    const outcome = registry.pushDownlink({ id: 9, deviceIntId: 1, payload: new Uint8Array(Buffer.from("kept")) });
    expect(await (await get("/topics/inbox")).text()).toBe("kept");
    expect(await outcome).toEqual({ status: "DELIVERED" });
  });

  it("refuses a poll on a filter its policies deny with 403", async () => {
    await start();
    expect(await json(await get("/topics/secret/%23"))).toMatchObject({
      status: 403,
      body: { error: "DENIED_BY_POLICY" },
    });
  });

  it("ends a waiting poll with 401 when the device is kicked", async () => {
    await start();
    expect((await get("/topics/inbox")).status).toBe(204);
    const polled = get("/topics/inbox?wait=10");
    await waitingPolls(1);
    registry.kick(1, "device blocked");
    expect(await json(await polled)).toEqual({
      status: 401,
      body: { error: "SESSION_ENDED", message: "kicked: device blocked" },
    });
    expect(registry.events.at(-1)).toMatchObject({ type: "closed", reason: "kicked: device blocked" });
  });
});
