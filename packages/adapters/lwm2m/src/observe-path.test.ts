import { nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryHarness, type Harness } from "./memory-harness.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

const command = (reqID: number | string, msgType: string, data: Record<string, unknown>) =>
  h!.registry.pushDownlink({ deviceIntId: 7, payload: Buffer.from(JSON.stringify({ reqID, msgType, data })) });
const temperature = (value: number) => ({ type: "float" as const, value });

describe("LwM2M observe", () => {
  it("observes a path: the first answer on up/resp, each notification on up/notify with the command's reqID", async () => {
    h = memoryHarness();
    await h.client.register();
    await nextTurn();
    expect(await command(21, "observe", { path: "/3303/0/5700" })).toEqual({ status: "DELIVERED" });
    expect(h.client.requests[0]).toMatchObject({ method: "GET", observe: 0, accept: 11542 });
    expect(h.uplinks("up/resp")[0]).toMatchObject({
      reqID: 21,
      msgType: "observe",
      data: { code: "2.05", content: [{ path: "/3303/0/5700", value: 22.5 }] },
    });
    await h.client.set("/3303/0/5700", temperature(23.25));
    await vi.waitFor(() => expect(h!.uplinks("up/notify")).toHaveLength(1));
    expect(h.uplinks("up/notify")).toEqual([
      {
        reqID: 21,
        msgType: "notify",
        data: { code: "2.05", codeMsg: "Content", content: [{ path: "/3303/0/5700", value: 23.25 }] },
      },
    ]);
  });

  it("cancels an observation with GET Observe 1, and fails cancelling a path not observed", async () => {
    h = memoryHarness();
    await h.client.register();
    await nextTurn();
    await command(22, "observe", { path: "/3303/0" });
    expect(h.client.observedPaths).toEqual(["/3303/0"]);
    expect(await command(23, "cancel-observe", { path: "/3303/0" })).toEqual({ status: "DELIVERED" });
    expect(h.client.requests.at(-1)).toMatchObject({ method: "GET", observe: 1 });
    expect(h.client.observedPaths).toEqual([]);
    expect(h.uplinks("up/resp").at(-1)).toMatchObject({ reqID: 23, msgType: "cancel-observe", data: { code: "2.05" } });
    expect(await command(24, "cancel-observe", { path: "/3/0" })).toEqual({
      status: "FAILED",
      message: "no observation of /3/0 is held",
    });
  });

  it("autoSub observes every registered object instance except Security and Server, reqID autoSub", async () => {
    h = memoryHarness({ device: { autoSub: true } });
    h.client.resources.set("/0/0/0", { type: "string", value: "coap://server" });
    await h.client.register();
    await vi.waitFor(() => expect(h!.uplinks("up/notify")).toHaveLength(2));
    expect(h.client.observedPaths).toEqual(["/3/0", "/3303/0"]);
    const first = h.uplinks("up/notify");
    expect(first.map((u) => u.reqID)).toEqual(["autoSub", "autoSub"]);
    await h.client.set("/3303/0/5700", temperature(30));
    await vi.waitFor(() => expect(h!.uplinks("up/notify")).toHaveLength(3));
    expect(h.uplinks("up/notify").at(-1)).toMatchObject({
      reqID: "autoSub",
      msgType: "notify",
      data: {
        content: [
          { path: "/3303/0/5700", value: 30 },
          { path: "/3303/0/5701", value: "Cel" },
        ],
      },
    });
  });

  it("autoSub observes again after a re-registration, and not for a device without autoSub", async () => {
    h = memoryHarness({ device: { autoSub: true } });
    const observesSent = () => h!.client.requests.filter((r) => r.observe === 0).length;
    await h.client.register();
    await vi.waitFor(() => expect(observesSent()).toBe(2));
    await h.client.register();
    await vi.waitFor(() => expect(observesSent()).toBe(4));
    const observes = h.client.requests.filter((r) => r.observe === 0).map((r) => r.path);
    expect(observes).toEqual(["/3/0", "/3303/0", "/3/0", "/3303/0"]);
    h.close();
    h = memoryHarness();
    await h.client.register();
    await nextTurn();
    expect(h.client.requests).toEqual([]);
  });

  it("forgets observations on de-register: a later notification is rejected and not published", async () => {
    h = memoryHarness({ device: { autoSub: true } });
    await h.client.register();
    await vi.waitFor(() => expect(h!.uplinks("up/notify")).toHaveLength(2));
    const before = h.uplinks("up/notify").length;
    await h.client.deregister();
    await h.client.set("/3303/0/5700", temperature(1));
    // The notification is answered with RST: the client forgets the observation, and nothing was published.
    await vi.waitFor(() => expect(h!.client.observedPaths).toEqual(["/3/0"]));
    expect(h.uplinks("up/notify").length).toBe(before);
  });
});
