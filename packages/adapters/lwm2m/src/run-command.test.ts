import type { MessageLayerOptions } from "@iot/adapter-coap";
import { nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { decodeContent } from "./codec/content.js";
import { memoryHarness, type Harness } from "./memory-harness.js";
import type { SimulatorOptions } from "./lwm2m-client-simulator.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
  vi.useRealTimers();
});

async function registered(
  client: Partial<SimulatorOptions> = {},
  layer: Partial<MessageLayerOptions> = {},
): Promise<Harness> {
  h = memoryHarness({ client, layer });
  expect((await h.client.register()).code).toBe("2.01");
  await nextTurn();
  return h;
}

const command = (reqID: number | string, msgType: string, data: Record<string, unknown>) =>
  h!.registry.pushDownlink({ deviceIntId: 7, payload: Buffer.from(JSON.stringify({ reqID, msgType, data })) });

describe("LwM2M commands", () => {
  it("reads with a GET accepting TLV from a 1.0 client and answers on up/resp with the decoded content", async () => {
    await registered();
    expect(await command(1, "read", { path: "/3/0" })).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests[0]).toMatchObject({ method: "GET", path: "/3/0", accept: 11542 });
    const [resp] = h!.uplinks("up/resp");
    expect(resp).toMatchObject({ reqID: 1, msgType: "read", data: { code: "2.05", codeMsg: "Content" } });
    expect((resp!.data as { content: unknown[] }).content).toContainEqual({
      path: "/3/0/0",
      value: "Open Mobile Alliance",
    });
    expect((resp!.data as { content: unknown[] }).content).toContainEqual({ path: "/3/0/9", value: 87 });
  });

  it("reads with SenML JSON from a 1.1 client", async () => {
    await registered({ version: "1.1" });
    expect(await command("r2", "read", { path: "/3303/0/5700" })).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests[0]).toMatchObject({ accept: 110 });
    expect(h!.uplinks("up/resp")[0]).toMatchObject({
      reqID: "r2",
      data: { code: "2.05", content: [{ path: "/3303/0/5700", value: 22.5 }] },
    });
  });

  it("reads a resource again as plain text when the client answers 4.06 to the preferred format", async () => {
    await registered();
    h!.client.refuse.add(11542);
    expect(await command(3, "read", { path: "/3/0/0" })).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests.map((r) => r.accept)).toEqual([11542, 0]);
    expect(h!.uplinks("up/resp")[0]).toMatchObject({
      data: { content: [{ path: "/3/0/0", value: "Open Mobile Alliance" }] },
    });
  });

  it("writes a value with PUT in the client's format, typed by the resource table", async () => {
    await registered();
    expect(await command(4, "write", { path: "/3/0/14", value: "+02:00" })).toEqual({ status: "DELIVERED" });
    const put = h!.client.requests[0]!;
    expect(put).toMatchObject({ method: "PUT", path: "/3/0/14", contentFormat: 11542 });
    expect(decodeContent(11542, put.payload, "/3/0/14")).toEqual({
      ok: true,
      value: [{ path: "/3/0/14", value: "+02:00" }],
    });
    expect(h!.client.resources.get("/3/0/14")).toEqual({ type: "string", value: "+02:00" });
    expect(h!.uplinks("up/resp")[0]).toMatchObject({
      reqID: 4,
      msgType: "write",
      data: { code: "2.04", codeMsg: "Changed" },
    });
  });

  it("writes several resources of an instance from data.content", async () => {
    await registered({ version: "1.1" });
    const content = [
      { path: "/3303/0/5700", value: "19.5" },
      { path: "/3303/0/5701", value: "K" },
    ];
    expect(await command(5, "write", { path: "/3303/0", content })).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests[0]).toMatchObject({ method: "PUT", path: "/3303/0", contentFormat: 110 });
    expect(h!.client.resources.get("/3303/0/5700")).toEqual({ type: "float", value: 19.5 });
  });

  it("executes with POST and the arguments as the payload", async () => {
    await registered();
    expect(await command(6, "execute", { path: "/3/0/4", args: "0='now'" })).toEqual({
      status: "FAILED",
      message: "4.04 Not Found",
    });
    h!.client.resources.set("/3/0/4", { type: "string", value: "" });
    expect(await command(7, "execute", { path: "/3/0/4", args: "0='now'" })).toEqual({ status: "DELIVERED" });
    expect(h!.client.executed).toEqual([{ path: "/3/0/4", args: "0='now'" }]);
    expect(h!.uplinks("up/resp").map((u) => (u.data as { code: string }).code)).toEqual(["4.04", "2.04"]);
  });

  it("discovers with GET accepting link format and answers the links", async () => {
    await registered();
    expect(await command(8, "discover", { path: "/3303/0" })).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests[0]).toMatchObject({ method: "GET", accept: 40 });
    expect(h!.uplinks("up/resp")[0]).toMatchObject({
      msgType: "discover",
      data: { code: "2.05", content: [{ path: "/3303/0" }, { path: "/3303/0/5700" }, { path: "/3303/0/5701" }] },
    });
  });

  it("writes attributes with PUT and the attributes as Uri-Query", async () => {
    await registered();
    expect(await command(9, "write-attr", { path: "/3303/0/5700", pmin: 10, pmax: "60", gt: 30.5 })).toEqual({
      status: "DELIVERED",
    });
    expect(h!.client.requests[0]).toMatchObject({ method: "PUT", query: ["pmin=10", "pmax=60", "gt=30.5"] });
    expect(h!.client.requests[0]!.payload.length).toBe(0);
  });

  it("creates an instance with POST to the object and answers its location", async () => {
    await registered();
    const content = [{ path: "/3303/1/5700", value: 1.5 }];
    expect(await command(10, "create", { path: "/3303", content })).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests[0]).toMatchObject({ method: "POST", path: "/3303", contentFormat: 11542 });
    expect(h!.uplinks("up/resp")[0]).toMatchObject({ data: { code: "2.01", codeMsg: "Created", location: "/3303/1" } });
    expect(h!.client.resources.get("/3303/1/5700")).toEqual({ type: "float", value: 1.5 });
  });

  it("deletes an instance with DELETE", async () => {
    await registered();
    expect(await command(11, "delete", { path: "/3303/0" })).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests[0]).toMatchObject({ method: "DELETE", path: "/3303/0" });
    expect(h!.client.resources.has("/3303/0/5700")).toBe(false);
    expect(h!.uplinks("up/resp")[0]).toMatchObject({ data: { code: "2.02", codeMsg: "Deleted" } });
  });

  it("fails with the code on an error answer, and with timeout when the client is silent", async () => {
    await registered();
    h!.client.answerWith.set("/3/0/0", "4.01");
    expect(await command(12, "read", { path: "/3/0/0" })).toEqual({ status: "FAILED", message: "4.01 Unauthorized" });
    expect(h!.uplinks("up/resp")[0]).toMatchObject({ reqID: 12, data: { code: "4.01", codeMsg: "Unauthorized" } });
    h!.link.fate = (c) => (c.from === "server" ? "drop" : "deliver");
    expect(await command(13, "read", { path: "/3/0/0" })).toEqual({
      status: "FAILED",
      message: "timeout: the peer did not acknowledge the request",
    });
  });

  it("fails each command the client never answers after the request timeout, and then runs the next", async () => {
    // CoAP's retransmissions would take 3.1 s here (ACK_TIMEOUT 100 ms, 4 retransmissions); the bound is 300 ms.
    await registered({}, { maxRetransmit: 4, requestTimeoutMs: 300 });
    vi.useFakeTimers();
    h!.client.ignore.add("/3/0/13");
    h!.client.ignore.add("/3/0/14");
    const outcomes: unknown[] = [];
    const settled = (p: Promise<unknown>) => p.then((o) => (outcomes.push(o), o));
    const first = settled(command(20, "read", { path: "/3/0/13" }));
    const second = settled(command(21, "write", { path: "/3/0/14", value: "+02:00" }));
    const read = settled(command(22, "read", { path: "/3/0/0" }));
    await vi.advanceTimersByTimeAsync(299);
    expect(outcomes).toEqual([]);
    await vi.advanceTimersByTimeAsync(301);
    // The third command goes once the second timed out; a step of its flow that takes a real turn of the event loop
    // (a busy machine) ends after the advance above: the clock then moves on a millisecond at a time until it is back.
    await vi.waitFor(async () => {
      await vi.advanceTimersByTimeAsync(1);
      expect(outcomes).toHaveLength(3);
    }, 10_000);
    const timeout = { status: "FAILED", message: "timeout: no answer from the peer within 300 ms" };
    expect(await first).toEqual(timeout);
    expect(await second).toEqual(timeout);
    expect(await read).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests.map((r) => r.path)).toEqual(["/3/0/13", "/3/0/14", "/3/0/0"]);
    expect(h!.uplinks("up/resp")).toMatchObject([{ reqID: 22, data: { code: "2.05" } }]);
  });

  it("fails a malformed command with the reason and sends nothing", async () => {
    await registered();
    const bad = await h!.registry.pushDownlink({ deviceIntId: 7, payload: Buffer.from("read /3/0") });
    expect(bad.status).toBe("FAILED");
    expect(bad.message).toMatch(/not JSON/);
    expect(await command(14, "reboot", { path: "/3/0/4" })).toMatchObject({ status: "FAILED", message: /msgType/ });
    expect(await command(15, "read", { path: "/3/0/x" })).toMatchObject({ status: "FAILED", message: /path/ });
    expect(await command(16, "write", { path: "/3/0/9", value: "lots" })).toMatchObject({ status: "FAILED" });
    expect(await command(17, "execute", { path: "/3/0" })).toMatchObject({ status: "FAILED" });
    expect(h!.client.requests).toEqual([]);
    expect(h!.uplinks("up/resp")).toEqual([]);
  });
});
