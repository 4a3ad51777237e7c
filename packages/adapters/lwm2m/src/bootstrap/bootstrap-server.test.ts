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
    expect(steps).toEqual(["DELETE /", "GET /0", "PUT /0/1", "PUT /1/0", "POST /bs"]);
    expect(h.client.requests[2]).toMatchObject({ contentFormat: 110 });
    expect(h.client.resources.get("/0/0/0")).toEqual({ type: "string", value: "coap://bootstrap.test:5783" });
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
