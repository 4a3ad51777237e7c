/**
 * HTTP device requests through the HTTP device adapter on a node:http server (127.0.0.1, a real socket per case):
 * raw HTTP/1.1 requests — POST publishes and GET polls on device topics, right or wrong Basic credentials, odd
 * query strings, content types and lengths — are built valid and their bytes mutated. No answer may be 500, no
 * error may escape; a device on its own connection keeps publishing with 204 and its uplinks reach the registry.
 */
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import fc from "fast-check";
import { createAdapterLogger, FakeRegistryClient } from "@iot/adapter-core";
import { createHttpAdapter } from "@iot/adapter-http";
import { mutatedBytes, type FuzzTarget } from "../harness.js";

const LIVE = { deviceIntId: 1, deviceId: "live-1", username: "lu", token: "lt" };
const OTHER = {
  deviceIntId: 2,
  deviceId: "dev-2",
  username: "u2",
  token: "t2",
  policies: [{ id: 1, topic: "secret/#", access: 3 as const, allow: false }],
};
const basic = (user: string, token: string) => `Basic ${Buffer.from(`${user}:${token}`).toString("base64")}`;

/** A valid raw request of a device. */
const request = fc
  .record({
    method: fc.constantFrom("POST", "GET", "PUT", "DELETE", "HEAD", "OPTIONS"),
    topic: fc.oneof(
      fc.constantFrom("telemetry", "inbox", "secret/a", "a/+/b", "#", "", "%zz", "a%2Fb", "../x"),
      fc.string({ maxLength: 16 }).map(encodeURIComponent),
    ),
    query: fc.constantFrom("", "?wait=0", "?wait=1", "?wait=-1", "?wait=abc", "?wait=99999999999", "?qos=1&x"),
    auth: fc.constantFrom(basic("u2", "t2"), basic("u2", "no"), "Basic !!!", "Bearer x", ""),
    contentType: fc.constantFrom("application/json", "text/plain", "application/octet-stream", ""),
    body: fc.oneof(fc.string({ maxLength: 80 }), fc.constant('{"temp":21.5}')),
    lengthDelta: fc.constantFrom(0, 0, 0, -1, 1, 10_000_000),
  })
  .map((r) => {
    const body = Buffer.from(r.body);
    const head = [
      `${r.method} /topics/${r.topic}${r.query} HTTP/1.1`,
      "Host: fuzz",
      "Connection: close",
      ...(r.auth ? [`Authorization: ${r.auth}`] : []),
      ...(r.contentType ? [`Content-Type: ${r.contentType}`] : []),
      `Content-Length: ${Math.max(0, body.length + r.lengthDelta)}`,
    ];
    return new Uint8Array(Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`), body]));
  });

/** Sends raw bytes on a new connection; resolves with the response's status line (or "" when none came). */
function exchange(port: number, bytes: Uint8Array, waitMs = 150): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let got = "";
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(got.split("\r\n")[0] ?? "");
    };
    const timer = setTimeout(done, waitMs);
    socket.on("error", done);
    socket.on("close", done);
    socket.on("data", (b) => {
      got += b.toString("latin1");
      if (got.includes("\r\n")) done();
    });
    socket.end(bytes);
  });
}

/** The HTTP device adapter target. */
export const httpDevice: FuzzTarget<Uint8Array> = {
  name: "http-device",
  description: "raw HTTP device requests, valid and mutated, never get a 500; a live device keeps getting 204",
  async start() {
    const registry = new FakeRegistryClient({ devices: [LIVE, OTHER] });
    registry.start();
    const adapter = createHttpAdapter({
      registry,
      logger: createAdapterLogger("fuzz", "silent"),
      policyDefault: "allow",
      keepAliveSeconds: 1,
      maxMessageSize: 1024,
      maxWaitSeconds: 1,
    });
    const server = createServer(adapter.handle);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    let n = 0;
    return {
      arbitrary: mutatedBytes(request),
      async run(bytes) {
        const status = await exchange(port, bytes);
        if (/^HTTP\/1\.[01] 500/.test(status)) throw new Error(`answered ${status}`);
      },
      async alive() {
        const before = registry.uplinks.filter((u) => u.deviceIntId === LIVE.deviceIntId).length;
        const res = await fetch(`http://127.0.0.1:${port}/topics/telemetry`, {
          method: "POST",
          headers: { authorization: basic(LIVE.username, LIVE.token), "content-type": "application/json" },
          body: JSON.stringify({ n: ++n }),
        });
        if (res.status !== 204) throw new Error(`the live device's publish was answered ${res.status}`);
        const after = registry.uplinks.filter((u) => u.deviceIntId === LIVE.deviceIntId).length;
        if (after !== before + 1)
          throw new Error(`the live device's publish reached the registry ${after - before} times`);
      },
      forget() {
        registry.uplinks.length = 0;
        registry.events.length = 0;
        registry.authAttempts.length = 0;
      },
      async stop() {
        adapter.close();
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      },
    };
  },
};
