import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FeedEvent } from "./events.js";
import { DELIVERY_HEADER, deliveryBody, sendDelivery, SIGNATURE_HEADER, signBody } from "./webhook-sender.js";

const event: FeedEvent = {
  id: 9,
  type: "uplink",
  tenantID: "t1",
  productID: "p",
  deviceID: "d",
  time: 1,
  data: { topic: "up", qos: 1, payload: "" },
};
const delivery = (url: string) => ({ url, secret: "0123456789abcdef", deliveryId: "1-9", webhookId: 1, event });

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => {
      const closed = new Promise((r) => s.close(r));
      for (const socket of sockets.get(s) ?? []) socket.destroy(); // kept alive by the sender: closed here
      return closed;
    }),
  );
});
const sockets = new WeakMap<net.Server, Set<net.Socket>>();

/** Listens on a free loopback port; answers the server's base URL (closed, connections and all, after each test). */
async function listen(server: net.Server, scheme = "http"): Promise<string> {
  servers.push(server);
  const open = new Set<net.Socket>();
  sockets.set(server, open);
  server.on("connection", (socket: net.Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An HTTP receiver answering each delivery (body read) with `answer`; counts its connections. */
function receiver(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const state = { connections: 0 };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => answer(req, res, body));
  });
  server.on("connection", () => state.connections++);
  return { server, state };
}

const numbered = (url: string, i: number) => ({ ...delivery(url), deliveryId: `1-${i}`, event: { ...event, id: i } });

describe("webhook sender", () => {
  it("puts the delivery id, webhook id, send time and event in the signed body", () => {
    const body = deliveryBody(delivery("https://x.example/"), 1234);
    expect(JSON.parse(body)).toEqual({ deliveryID: "1-9", webhookID: 1, timestamp: 1234, event });
    expect(signBody("k", body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it("refuses to connect to a private address literal unless private targets are allowed", async () => {
    const r = await sendDelivery(delivery("http://127.0.0.1:9/hook"), 1_000, false);
    expect(r).toEqual({ ok: false, httpStatus: null, error: "127.0.0.1 is a private address" });
  });

  // Only forms the kernel itself routes to loopback: were the guard ever broken, this test still sends nothing off
  // this machine. Every other IPv6 form is judged by the same isPrivateAddress, table-tested in private-address.test.
  it("refuses IPv6 literals that embed a loopback address before connecting", async () => {
    for (const [url, host] of [
      ["http://[::ffff:127.0.0.1]:9/hook", "::ffff:7f00:1"],
      ["http://[::1]:9/hook", "::1"],
    ] as const)
      expect(await sendDelivery(delivery(url), 1_000, false), url).toEqual({
        ok: false,
        httpStatus: null,
        error: `${host} is a private address`,
      });
  });

  it("refuses a host name that resolves to a private address when it connects", async () => {
    const r = await sendDelivery(delivery("http://localhost:9/hook"), 1_000, false);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/localhost resolves to private address/);
  });

  it("delivers many at once to one receiver, each signed with its own id, and tells each its own answer", async () => {
    const seen: Array<{ id: string; signed: boolean; auth: string | undefined }> = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const id = String(req.headers[DELIVERY_HEADER]);
        const signed = req.headers[SIGNATURE_HEADER] === signBody("0123456789abcdef", body);
        seen.push({ id, signed, auth: req.headers.authorization });
        res.writeHead(Number(id.split("-")[1]) % 5 === 0 ? 503 : 200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://app:p%40ss@127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          sendDelivery({ ...delivery(url), deliveryId: `1-${i}`, event: { ...event, id: i } }, 5_000, true),
        ),
      );
      results.forEach((r, i) =>
        expect(r).toEqual(
          i % 5 === 0
            ? { ok: false, httpStatus: 503, error: "answered 503" }
            : { ok: true, httpStatus: 200, error: null },
        ),
      );
      expect(seen.map((s) => s.id).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `1-${i}`).sort());
      expect(seen.every((s) => s.signed)).toBe(true);
      expect(seen[0]!.auth).toBe(`Basic ${Buffer.from("app:p@ss").toString("base64")}`);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it("lets deliveries queued behind a slow answer go out on other connections and be answered meanwhile", async () => {
    let release: () => void = () => {};
    let arrived: () => void = () => {};
    const slowArrived = new Promise<void>((r) => (arrived = r));
    const { server } = receiver((req, res) => {
      if (req.headers[DELIVERY_HEADER] !== "1-0") return void res.writeHead(200).end();
      release = () => res.writeHead(200).end(); // answered only once the others are
      arrived();
    });
    const url = `${await listen(server)}/hook`;
    const slow = sendDelivery(numbered(url, 0), 10_000, true);
    await slowArrived;
    let slowDone = false;
    void slow.then(() => (slowDone = true));
    const others = await Promise.all(
      Array.from({ length: 40 }, (_, i) => sendDelivery(numbered(url, i + 1), 10_000, true)),
    );
    expect(others.every((r) => r.ok)).toBe(true);
    expect(slowDone).toBe(false);
    release();
    expect(await slow).toEqual({ ok: true, httpStatus: 200, error: null });
  });

  it("keeps its connections open from one delivery to the next, chunked answers and all", async () => {
    const { server, state } = receiver((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("part one ");
      res.end("part two");
    });
    const url = await listen(server);
    for (let i = 0; i < 10; i++) expect((await sendDelivery(numbered(url, i), 5_000, true)).ok).toBe(true);
    // The connection is free again a moment after its answer is read: the next delivery may take a second one.
    expect(state.connections).toBeLessThanOrEqual(2);
  });

  it("sends a delivery again, once, when its connection closes without an answer", async () => {
    const { server: http } = receiver((_req, res) => res.writeHead(201).end());
    let dropped = 0;
    const server = net.createServer((socket) => {
      if (dropped++ === 0) return void socket.once("data", () => socket.destroy()); // takes it, answers nothing
      http.emit("connection", socket);
    });
    const url = await listen(server);
    expect(await sendDelivery(numbered(url, 1), 5_000, true)).toEqual({ ok: true, httpStatus: 201, error: null });
    expect(dropped).toBe(2);
  });

  it("fails an attempt the receiver does not answer within the timeout, and one whose connection is refused", async () => {
    const url = await listen(net.createServer((socket) => socket.resume()));
    const started = Date.now();
    expect(await sendDelivery(numbered(url, 1), 200, true)).toEqual({
      ok: false,
      httpStatus: null,
      error: "no answer within 200 ms",
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);

    const closed = net.createServer();
    const gone = await listen(closed);
    await new Promise((r) => closed.close(r));
    servers.splice(servers.indexOf(closed), 1);
    const r = await sendDelivery(numbered(gone, 1), 5_000, true);
    expect(r).toMatchObject({ ok: false, httpStatus: null });
    expect(r.error).toMatch(/ECONNREFUSED/);
  });

  it("speaks TLS to https URLs and refuses a certificate no trusted authority signed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "webhook-tls-"));
    try {
      execFileSync("openssl", [
        ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1"],
        ...["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
        ...["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
      ]);
      const server = createTlsServer(
        { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
        (_req, res) => res.writeHead(200).end(),
      );
      const handshakes = once(server, "tlsClientError");
      const r = await sendDelivery(numbered(await listen(server, "https"), 1), 5_000, true);
      expect(r).toMatchObject({ ok: false, httpStatus: null });
      expect(r.error).toMatch(/^self-signed certificate/);
      await handshakes; // the server saw a TLS client hang up on its certificate
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
