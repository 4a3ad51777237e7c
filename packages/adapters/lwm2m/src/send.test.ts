import type { MessageLayer } from "@iot/adapter-coap";
import { nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it } from "vitest";
import { memoryHarness, type Harness } from "./memory-harness.js";

let h: Harness | undefined;
afterEach(() => {
  h?.close();
  h = undefined;
});

describe("LwM2M Send", () => {
  it("stores SenML JSON values as an up/send uplink and answers 2.04", async () => {
    h = memoryHarness({ client: { version: "1.1" } });
    expect((await h.client.register()).code).toBe("2.01");
    await nextTurn();
    const response = await h.client.sendValues(["/3303/0/5700", "/3/0/9"]);
    expect(response.code).toBe("2.04");
    expect(h.uplinks("up/send")).toEqual([
      {
        msgType: "send",
        data: {
          content: [
            { path: "/3303/0/5700", value: 22.5 },
            { path: "/3/0/9", value: 87 },
          ],
        },
      },
    ]);
  });

  it("takes SenML CBOR too", async () => {
    h = memoryHarness({ client: { version: "1.1" } });
    await h.client.register();
    await nextTurn();
    expect((await h.client.sendValues(["/3/0/0"], 112)).code).toBe("2.04");
    expect(h.uplinks("up/send")[0]).toEqual({
      msgType: "send",
      data: { content: [{ path: "/3/0/0", value: "Open Mobile Alliance" }] },
    });
  });

  it("takes LwM2M CBOR from a 1.2 client, into the same values", async () => {
    h = memoryHarness({ client: { version: "1.2" } });
    await h.client.register();
    await nextTurn();
    expect((await h.client.sendValues(["/3303/0/5700", "/3/0/13"], 11544)).code).toBe("2.04");
    expect(h.uplinks("up/send")[0]).toEqual({
      msgType: "send",
      data: {
        content: [
          { path: "/3303/0/5700", value: 22.5 },
          { path: "/3/0/13", value: 1_700_000_000 },
        ],
      },
    });
  });

  it("answers 4.04 to a client that is not registered and stores nothing", async () => {
    h = memoryHarness({ client: { version: "1.1" } });
    expect((await h.client.sendValues(["/3/0/9"])).code).toBe("4.04");
    expect(h.uplinks("up/send")).toEqual([]);
  });

  it("answers 4.15 to a payload in another format and 4.00 to malformed SenML", async () => {
    h = memoryHarness({ client: { version: "1.1" } });
    await h.client.register();
    await nextTurn();
    const layer = h.link.device as MessageLayer;
    const post = (payload: string, contentFormat: number) =>
      layer.request(h!.link.serverPeer, { method: "POST", path: ["dp"], payload, contentFormat });
    expect((await post("22.5", 0)).code).toBe("4.15");
    expect((await post('[{"n":"/3303","v":1}]', 110)).code).toBe("4.00");
    expect((await post("not json", 110)).code).toBe("4.00");
    expect(h.uplinks("up/send")).toEqual([]);
  });

  it("is accepted from a queue-mode client while it is awake", async () => {
    h = memoryHarness({ client: { version: "1.1", queueParameter: true }, server: { queueAwakeSeconds: 1 } });
    await h.client.register();
    await nextTurn();
    expect((await h.client.sendValues(["/3303/0/5700"])).code).toBe("2.04");
    expect(h.uplinks("up/send")).toHaveLength(1);
  });
});
