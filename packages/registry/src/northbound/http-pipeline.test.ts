import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { OriginPipeline } from "./http-pipeline.js";

const servers: Array<Server | net.Server> = [];
const pipelines: OriginPipeline[] = [];
afterEach(async () => {
  for (const p of pipelines.splice(0)) p.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen<S extends Server | net.Server>(server: S): Promise<URL> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

function pipeline(origin: URL, depth = 16): OriginPipeline {
  const p = new OriginPipeline(origin, { depth });
  pipelines.push(p);
  return p;
}

/** An HTTP server answering each POST with the status its body names, after reading the body. */
function statusServer(extra: (res: ServerResponse) => void = () => {}): { server: Server; bodies: string[] } {
  const bodies: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      bodies.push(`${req.url} ${String(req.headers["x-n"])} ${body}`);
      extra(res);
      res.writeHead(Number(JSON.parse(body).status)).end("answer body");
    });
  });
  return { server, bodies };
}

describe("pipelined HTTP POSTs to one origin", () => {
  it("sends many requests over few connections and gives each its own answer, in order", async () => {
    const { server, bodies } = statusServer();
    let connections = 0;
    server.on("connection", () => connections++);
    const p = pipeline(await listen(server));
    const statuses = Array.from({ length: 40 }, (_, i) => [200, 204, 500, 404][i % 4]!);
    const results = await Promise.all(
      statuses.map((status, i) =>
        p.post("/hook?x=1", { "x-n": String(i) }, JSON.stringify({ status, text: "é" }), 5_000),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(statuses);
    expect(bodies).toHaveLength(40);
    expect(bodies[0]).toBe(`/hook?x=1 0 {"status":200,"text":"é"}`);
    expect(connections).toBeLessThanOrEqual(3);
  });

  it("reads chunked answers and keeps the connection for the next requests", async () => {
    let connections = 0;
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.write("part one ");
        res.end("part two");
      });
    });
    server.on("connection", () => connections++);
    const p = pipeline(await listen(server));
    for (let i = 0; i < 3; i++) expect(await p.post("/", {}, "{}", 5_000)).toEqual({ status: 200 });
    expect(connections).toBe(1);
  });

  it("stops pipelining to a server that closes the connection after each answer, and still delivers all", async () => {
    const { server, bodies } = statusServer((res) => res.setHeader("connection", "close"));
    const p = pipeline(await listen(server));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => p.post("/", { "x-n": String(i) }, '{"status":200}', 5_000)),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(bodies.length).toBeGreaterThanOrEqual(10);
  });

  it("sends again, once, requests a connection closed without answering", async () => {
    let first = true;
    const { server: http } = statusServer();
    const server = net.createServer((socket) => {
      if (first) {
        first = false;
        socket.once("data", () => socket.destroy()); // takes the requests, answers none
        return;
      }
      http.emit("connection", socket);
    });
    const p = pipeline(await listen(server));
    const results = await Promise.all(Array.from({ length: 5 }, () => p.post("/", {}, '{"status":201}', 5_000)));
    expect(results).toEqual(Array.from({ length: 5 }, () => ({ status: 201 })));
  });

  it("fails a request the server never answers once its timeout passes, and the refused connection's ones", async () => {
    const silent = net.createServer((socket) => socket.resume());
    const p = pipeline(await listen(silent));
    const started = Date.now();
    expect(await p.post("/", {}, "{}", 200)).toEqual({ error: "no answer within 200 ms" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);

    const closed = net.createServer();
    const origin = await listen(closed);
    await new Promise((r) => closed.close(r));
    servers.splice(servers.indexOf(closed), 1);
    const r = await pipeline(origin).post("/", {}, "{}", 5_000);
    expect(r.error).toMatch(/ECONNREFUSED/);
  });

  it("fails the request whose answer is not HTTP and goes on with a new connection", async () => {
    let first = true;
    const { server: http } = statusServer();
    const server = net.createServer((socket) => {
      if (first) {
        first = false;
        socket.once("data", () => socket.write("garbage\r\n\r\n"));
        return;
      }
      http.emit("connection", socket);
    });
    const p = pipeline(await listen(server));
    expect(await p.post("/", {}, '{"status":200}', 5_000)).toEqual({ error: "answer is not HTTP/1.x" });
    expect(await p.post("/", {}, '{"status":200}', 5_000)).toEqual({ status: 200 });
  });
});
