import { connect, type AddressInfo } from "node:net";
import { request } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredBodyLimit, headerOf, jsonBody } from "./request-body.js";

/** A node:http server whose one route answers the JSON body it read (or 400), behind a 64-byte limit. */
const app = new Hono()
  .use("*", declaredBodyLimit(64, bodyLimit({ maxSize: 64, onError: (c) => c.text("too large", 413) })))
  .get("/headers", (c) => {
    const names = ["x-thing", "authorization", "accept-language", "x-none"];
    const ours = names.map((n) => headerOf(c, n) ?? null);
    return c.json({ ours, hono: names.map((n) => c.req.header(n) ?? null) });
  })
  .post("/echo", async (c) => {
    try {
      return c.json({ got: await jsonBody(c) });
    } catch {
      return c.text("not JSON", 400);
    }
  });
const server = createAdaptorServer({ fetch: app.fetch });
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** POSTs `body` to /echo, declaring its length unless `chunked`; answers the status and text. */
function post(body: Buffer, chunked = false): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/echo",
        headers: chunked ? { "transfer-encoding": "chunked" } : { "content-length": body.length },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    if (chunked) for (let i = 0; i < body.length; i += 4) req.write(body.subarray(i, i + 4));
    req.end(chunked ? undefined : body);
  });
}

describe("request bodies read from node:http", () => {
  it("parse a declared-length JSON body, UTF-8 with its byte order mark ignored", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const r = await post(Buffer.concat([bom, Buffer.from(JSON.stringify({ name: "näme" }))]));
    expect(r).toEqual({ status: 200, text: JSON.stringify({ got: { name: "näme" } }) });
  });

  it("parse a declared-length JSON body that arrives in several pieces", async () => {
    const body = Buffer.from(JSON.stringify({ pieces: "abcdefghij" }));
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => {
        socket.write(`POST /echo HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`);
        socket.write(body.subarray(0, 7));
        setTimeout(() => socket.write(body.subarray(7)), 50);
      });
      let answer = "";
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
      socket.on("end", () => resolve(answer));
      socket.on("error", reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toContain(JSON.stringify({ got: { pieces: "abcdefghij" } }));
  });

  it("parse a chunked body the limit has counted", async () => {
    const r = await post(Buffer.from(JSON.stringify({ chunked: [1, 2, 3] })), true);
    expect(r).toEqual({ status: 200, text: JSON.stringify({ got: { chunked: [1, 2, 3] } }) });
  });

  it("refuse a body that is not JSON", async () => {
    expect((await post(Buffer.from("{not json"))).status).toBe(400);
  });

  it("leave a declared length over the limit, and a chunked body over it, to the limit", async () => {
    expect((await post(Buffer.alloc(65, 0x20))).status).toBe(413);
    expect((await post(Buffer.alloc(65, 0x20), true)).status).toBe(413);
  });

  it("read a header as hono does: its fields joined with a comma, surrounding spaces dropped, any case of its name", async () => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()));
    const closed = new Promise((resolve) => socket.on("close", resolve));
    socket.end(
      "GET /headers HTTP/1.1\r\nHost: x\r\nX-Thing:   a b  \r\nAuthorization: Bearer t\r\nx-thing: c\r\n" +
        "ACCEPT-LANGUAGE: zh-CN\r\nConnection: close\r\n\r\n",
    );
    await closed;
    const body = JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)) as { ours: unknown[]; hono: unknown[] };
    expect(body.ours).toEqual(["a b, c", "Bearer t", "zh-CN", null]);
    expect(body.ours).toEqual(body.hono);
  });
});
