import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { consoleRoutes } from "./console-routes.js";

const dist = mkdtempSync(join(tmpdir(), "console-dist-"));
mkdirSync(join(dist, "assets"));
writeFileSync(
  join(dist, "index.html"),
  '<meta name="iot-api-form" content="%IOT_API_FORM%"><meta name="iot-brokers" content="%IOT_BROKERS%">',
);
writeFileSync(join(dist, "assets", "index-abc123.js"), "console.log(1)");
writeFileSync(join(dist, "assets", "index-abc123.css"), "body{}");
writeFileSync(join(tmpdir(), "secret.txt"), "outside");
const app = consoleRoutes({ form: "2", brokers: { mqttBroker: 'host"<x>:1883' }, distDir: dist });

afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe("console routes", () => {
  it("answers the page with the API form and the brokers filled in, escaped, never cached", async () => {
    const res = await app.request("/console/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).toContain('content="2"');
    expect(html).toContain("{&quot;mqttBroker&quot;:&quot;host\\&quot;&lt;x&gt;:1883&quot;}");
  });

  it("answers the page for client routes such as /console/devices/3", async () => {
    const res = await app.request("/console/devices/3");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("iot-api-form");
  });

  it("serves hashed assets with their content type, cached for a year", async () => {
    const js = await app.request("/console/assets/index-abc123.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const css = await app.request("/console/assets/index-abc123.css");
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("answers 404 for a missing asset instead of the page", async () => {
    expect((await app.request("/console/assets/index-old.js")).status).toBe(404);
    expect((await app.request("/console/favicon.ico")).status).toBe(404);
  });

  it("never serves a file outside the build folder", async () => {
    for (const path of ["/console/../secret.txt", "/console/%2e%2e/secret.txt", "/console/..%2fsecret.txt"]) {
      const res = await app.request(path);
      expect(await res.text()).not.toContain("outside");
    }
  });

  it("redirects /console to /console/", async () => {
    const res = await app.request("/console");
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe("/console/");
  });

  it("answers 503 with how to build when the console is not built", async () => {
    const empty = consoleRoutes({ form: "1", brokers: {}, distDir: join(dist, "missing") });
    const res = await empty.request("/console/");
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("not built");
  });
});
