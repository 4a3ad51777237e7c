import { nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryHarness, type Harness } from "../memory-harness.js";
import type { SimulatorOptions } from "../lwm2m-client-simulator.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

async function registered(client: Partial<SimulatorOptions> = { version: "1.1" }): Promise<Harness> {
  h = memoryHarness({ client });
  expect((await h.client.register()).code).toBe("2.01");
  await nextTurn();
  return h;
}

const command = (reqID: number | string, msgType: string, data: Record<string, unknown>) =>
  h!.registry.pushDownlink({ deviceIntId: 7, payload: Buffer.from(JSON.stringify({ reqID, msgType, data })) });

describe("LwM2M composite operations", () => {
  it("reads several paths with one FETCH of SenML names and answers every value on up/resp", async () => {
    await registered();
    expect(await command(1, "read-composite", { paths: ["/3303/0/5700", "/3/0/0"] })).toEqual({
      status: "DELIVERED",
    });
    const [request] = h!.client.requests;
    expect(request).toMatchObject({ method: "FETCH", path: "/", contentFormat: 110, accept: 110 });
    expect(JSON.parse(request!.payload.toString())).toEqual([{ n: "/3/0/0" }, { n: "/3303/0/5700" }]);
    expect(h!.uplinks("up/resp")).toEqual([
      {
        reqID: 1,
        msgType: "read-composite",
        data: {
          code: "2.05",
          codeMsg: "Content",
          content: [
            { path: "/3/0/0", value: "Open Mobile Alliance" },
            { path: "/3303/0/5700", value: 22.5 },
          ],
        },
      },
    ]);
  });

  it("uses SenML CBOR with a client that announced only that", async () => {
    h = memoryHarness({ client: { version: "1.1" } });
    await h.client.register();
    await nextTurn();
    const r = [...h.server.registrations.values()][0]!;
    r.objects = { ...r.objects, contentFormats: [112] };
    expect(await command(2, "read-composite", { paths: ["/3/0/9"] })).toEqual({ status: "DELIVERED" });
    expect(h.client.requests[0]).toMatchObject({ method: "FETCH", contentFormat: 112, accept: 112 });
    expect(h.uplinks("up/resp")[0]).toMatchObject({ data: { content: [{ path: "/3/0/9", value: 87 }] } });
  });

  it("writes several resources with one iPATCH", async () => {
    await registered();
    const content = [
      { path: "/3/0/14", value: "+02:00" },
      { path: "/1/0/1", value: 600 },
    ];
    expect(await command(3, "write-composite", { content })).toEqual({ status: "DELIVERED" });
    expect(h!.client.requests[0]).toMatchObject({ method: "iPATCH", path: "/", contentFormat: 110 });
    expect(h!.client.resources.get("/3/0/14")).toEqual({ type: "string", value: "+02:00" });
    expect(h!.client.resources.get("/1/0/1")).toEqual({ type: "integer", value: 600n });
    expect(h!.uplinks("up/resp")[0]).toEqual({
      reqID: 3,
      msgType: "write-composite",
      data: { code: "2.04", codeMsg: "Changed" },
    });
  });

  it("observes several paths at once: notifications on up/notify, then cancels with the same FETCH and Observe 1", async () => {
    await registered();
    expect(await command("o", "observe-composite", { paths: ["/3303/0/5700", "/3/0/9"] })).toEqual({
      status: "DELIVERED",
    });
    expect(h!.client.requests[0]).toMatchObject({ method: "FETCH", observe: 0 });
    expect(h!.client.composite.observed).toEqual([["/3/0/9", "/3303/0/5700"]]);
    expect(h!.uplinks("up/resp")[0]).toMatchObject({ reqID: "o", msgType: "observe-composite" });
    await h!.client.set("/3303/0/5700", { type: "float", value: 19.5 });
    await vi.waitFor(() => expect(h!.uplinks("up/notify")).toHaveLength(1));
    expect(h!.uplinks("up/notify")[0]).toEqual({
      reqID: "o",
      msgType: "notify",
      data: {
        code: "2.05",
        codeMsg: "Content",
        content: [
          { path: "/3/0/9", value: 87 },
          { path: "/3303/0/5700", value: 19.5 },
        ],
      },
    });
    expect(await command("c", "cancel-observe-composite", { paths: ["/3/0/9", "/3303/0/5700"] })).toEqual({
      status: "DELIVERED",
    });
    expect(h!.client.requests[1]).toMatchObject({ method: "FETCH", observe: 1 });
    expect(h!.client.composite.observed).toEqual([]);
    expect(await command("c2", "cancel-observe-composite", { paths: ["/3/0/9"] })).toMatchObject({
      status: "FAILED",
      message: "no composite observation of /3/0/9 is held",
    });
  });

  it("fails a composite command on a 1.0 client without sending anything", async () => {
    await registered({ version: "1.0" });
    expect(await command(5, "read-composite", { paths: ["/3/0/0"] })).toEqual({
      status: "FAILED",
      message: "read-composite is LwM2M 1.1; the client registered with 1.0",
    });
    expect(h!.client.requests).toEqual([]);
  });

  it("refuses a malformed composite command with its reason", async () => {
    await registered();
    expect(await command(6, "read-composite", { paths: [] })).toMatchObject({ status: "FAILED" });
    expect(await command(7, "write-composite", { content: [{ path: "/3/0", value: 1 }] })).toEqual({
      status: "FAILED",
      message: "/3/0 names no resource to give a value",
    });
    expect(h!.client.requests).toEqual([]);
  });
});
