import type { MessageLayer } from "@iot/adapter-coap";
import { nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { defaultResources } from "../lwm2m-client-simulator.js";
import { memoryHarness, type Harness } from "../memory-harness.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

const defaults = () => ({
  nosecUri: "coap://lwm2m.test:5783",
  pskUri: "coaps://lwm2m.test:5784",
  lifetime: 600,
  binding: "U",
});

describe("LwM2M bootstrap server", () => {
  it("deletes, writes Security and Server pointing at the NoSec listener, finishes, and the client then registers", async () => {
    h = memoryHarness({ server: { bootstrapDefaults: defaults } });
    const result = await h.client.bootstrap();
    expect(result).toEqual({
      serverUri: "coap://lwm2m.test:5783",
      securityMode: 3,
      identity: "",
      key: "",
      serverPublicKey: "",
      shortServerId: 1,
      lifetime: 600,
      binding: "U",
    });
    const steps = h.client.requests.map((r) => `${r.method} ${r.path}`);
    expect(steps).toEqual(["DELETE /", "PUT /0/1", "PUT /1/0", "POST /bs"]);
    expect(h.client.requests[1]).toMatchObject({ contentFormat: 11542 });
    const registered = await h.client.register();
    expect(registered.code).toBe("2.01");
    await nextTurn();
    expect([...h.server.registrations.values()][0]).toMatchObject({ lifetime: 600 });
    await vi.waitFor(() => expect(h!.registry.events.map((e) => e.type)).toContain("opened"));
  });

  it("takes the device's own settings over the deployment's, and writes in the format pct names beside the bootstrap account a Discover found", async () => {
    const resources = defaultResources();
    resources.set("/0/0/0", { type: "string", value: "coap://bootstrap.test:5783" });
    resources.set("/0/0/1", { type: "boolean", value: true });
    h = memoryHarness({
      client: { resources },
      server: { bootstrapDefaults: defaults },
      device: {
        lwm2mBootstrap: { securityMode: "", serverUri: "coap://other.test:5683", lifetime: 120, binding: "UQ" },
      },
    });
    const result = await h.client.bootstrap(110);
    expect(result).toMatchObject({ serverUri: "coap://other.test:5683", lifetime: 120, binding: "UQ" });
    const steps = h.client.requests.map((r) => `${r.method} ${r.path}`);
    expect(steps).toEqual(["GET /1", "DELETE /", "GET /0", "PUT /0/1", "PUT /1/0", "POST /bs"]);
    expect(h.client.requests[0]).toMatchObject({ accept: 110 });
    expect(h.client.requests[3]).toMatchObject({ contentFormat: 110 });
    expect(h.client.resources.get("/0/0/0")).toEqual({ type: "string", value: "coap://bootstrap.test:5783" });
  });

  it("writes Security (PSK keys as bytes) and Server in LwM2M CBOR when pct names 11544 (1.2)", async () => {
    h = memoryHarness({
      client: { version: "1.2" },
      server: { bootstrapDefaults: defaults },
      device: { lwm2mBootstrap: { securityMode: "psk", serverUri: "", lifetime: 0, binding: "" } },
    });
    const result = await h.client.bootstrap(11544);
    expect(result).toMatchObject({
      serverUri: "coaps://lwm2m.test:5784",
      securityMode: 0,
      identity: Buffer.from(h.client.options.endpoint).toString("hex"),
      key: Buffer.from("key").toString("hex"),
      lifetime: 600,
    });
    const writes = h.client.requests.filter((r) => r.method === "PUT");
    expect(writes.map((r) => [r.path, r.contentFormat])).toEqual([
      ["/0/0", 11544],
      ["/1/0", 11544],
    ]);
  });

  it("writes PSK with the endpoint name as identity and the token as key when the settings ask for it", async () => {
    h = memoryHarness({
      server: { bootstrapDefaults: defaults },
      device: { lwm2mBootstrap: { securityMode: "psk", serverUri: "", lifetime: 0, binding: "" } },
    });
    const result = await h.client.bootstrap();
    expect(result).toMatchObject({
      serverUri: "coaps://lwm2m.test:5784",
      securityMode: 0,
      identity: Buffer.from(h.client.options.endpoint).toString("hex"),
      key: Buffer.from("key").toString("hex"),
    });
  });

  it("reads the Server object first (Bootstrap-Read, 1.1) and writes this service's account under the instance that held its Short Server ID", async () => {
    const resources = defaultResources();
    for (const p of ["/1/0/0", "/1/0/1"]) resources.delete(p);
    resources.set("/1/4/0", { type: "integer", value: 1n });
    resources.set("/1/4/1", { type: "integer", value: 86400n });
    resources.set("/1/4/7", { type: "string", value: "UQ" });
    resources.set("/1/2/0", { type: "integer", value: 9n });
    h = memoryHarness({ client: { resources }, server: { bootstrapDefaults: defaults } });
    const result = await h.client.bootstrap(112);
    expect(result).toMatchObject({ lifetime: 600, binding: "U", shortServerId: 1 });
    const steps = h.client.requests.map((r) => `${r.method} ${r.path}`);
    expect(steps).toEqual(["GET /1", "DELETE /", "GET /0", "PUT /0/0", "PUT /1/4", "POST /bs"]);
    expect(h.client.requests[0]).toMatchObject({ accept: 112 });
    expect(h.client.resources.get("/1/4/1")).toEqual({ type: "integer", value: 600n });
    expect(h.client.resources.has("/1/2/0")).toBe(false);
  });

  it("goes on when the client refuses the Bootstrap-Read", async () => {
    h = memoryHarness({ server: { bootstrapDefaults: defaults } });
    const result = await h.client.bootstrap(110, (b) => b.failOn.add("/1"));
    expect(result).toMatchObject({ serverUri: "coap://lwm2m.test:5783", lifetime: 600 });
    const steps = h.client.requests.map((r) => `${r.method} ${r.path}`);
    expect(steps).toEqual(["GET /1", "DELETE /", "GET /0", "PUT /0/0", "PUT /1/0", "POST /bs"]);
  });

  it("writes certificate mode with the service CA as Server Public Key and the DTLS listener's URI", async () => {
    const ca = Buffer.from("3082ca", "hex");
    h = memoryHarness({
      server: { bootstrapDefaults: () => ({ ...defaults(), serverCertificate: ca }) },
      device: { lwm2mBootstrap: { securityMode: "certificate", serverUri: "", lifetime: 0, binding: "" } },
    });
    const result = await h.client.bootstrap();
    expect(result).toMatchObject({
      serverUri: "coaps://lwm2m.test:5784",
      securityMode: 2,
      serverPublicKey: "3082ca",
      identity: "",
      key: "",
    });
  });

  it("refuses an unknown endpoint with 4.03 and writes nothing", async () => {
    h = memoryHarness({ client: { endpoint: "490154203237599" } });
    await expect(h.client.bootstrap()).rejects.toThrow("Bootstrap-Request answered 4.03");
    expect(h.client.requests).toEqual([]);
    expect(h.server.registrations.size).toBe(0);
  });

  it("refuses a blocked device with 4.03", async () => {
    h = memoryHarness({ device: { blocked: true } });
    await expect(h.client.bootstrap()).rejects.toThrow("4.03");
  });

  it("leaves nothing behind when a step fails midway, and the client's next request bootstraps afresh", async () => {
    h = memoryHarness({ server: { bootstrapDefaults: defaults } });
    const first = h.client.bootstrap(undefined, (b) => b.failOn.add("/1/0"));
    await vi.waitFor(() => expect(h!.client.requests.map((r) => r.path)).toContain("/1/0"));
    await vi.waitFor(() => expect(h!.server.bootstrapping).toBe(0));
    expect(h.server.registrations.size).toBe(0);
    expect(h.client.requests.map((r) => r.path)).not.toContain("/bs");
    h.client.bootstrapping?.abandon("gave up");
    await expect(first).rejects.toThrow("gave up");
    h.client.requests.length = 0;
    await expect(h.client.bootstrap()).resolves.toMatchObject({ serverUri: "coap://lwm2m.test:5783" });
    expect(h.client.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "DELETE /",
      "PUT /0/1",
      "PUT /1/0",
      "POST /bs",
    ]);
  });

  it("answers a Bootstrap-Request without ep with 4.00", async () => {
    h = memoryHarness();
    const response = await (h.link.device as MessageLayer).request(h.link.serverPeer, { method: "POST", path: ["bs"] });
    expect(response.code).toBe("4.00");
  });
});
