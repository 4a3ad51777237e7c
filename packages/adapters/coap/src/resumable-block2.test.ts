import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { blockOption, FakeCoapClient } from "./fake-coap-client.js";
import { createMessageLayer, type CoapRequest, type MessageLayer } from "./message-layer.js";

let layer: MessageLayer;
let seen: CoapRequest[];
afterEach(() => layer.close());

const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => i & 0xff));
const etag = Buffer.from("0011223344556677", "hex");
const block = (num: number) => ({ num, more: false, szx: 6 });

/** A layer serving `body` on /down (resumable) and /other (not), its ETag on /down given by the handler. */
function start() {
  seen = [];
  layer = createMessageLayer(
    async (r) => {
      seen.push(r);
      return r.path[0] === "down" ? { code: "2.05", payload: body, etag } : { code: "2.05", payload: body };
    },
    { logger: pino({ level: "silent" }), maxBodyBytes: 4096, resumableBlock2: (path) => path[0] === "down" },
  );
}

const client = (port: number) => new FakeCoapClient(layer, { address: "127.0.0.1", port });

describe("CoAP message layer, downloads resumed at a later block (resumableBlock2)", () => {
  it("answers a later block asked from a port it never saw from the handler's answer, with the handler's ETag", async () => {
    start();
    const first = await client(41_000).request("0.01", "/down", { query: [] });
    expect(blockOption(first, "Block2")).toEqual({ num: 0, more: true, szx: 6 });
    expect(first.options.find((o) => o.name === "ETag")!.value).toEqual(etag);
    const resumed = client(41_001);
    const third = await resumed.request("0.01", "/down", { query: [], block2: block(2) });
    expect(third.code).toBe("2.05");
    expect(blockOption(third, "Block2")).toEqual({ num: 2, more: true, szx: 6 });
    expect(third.options.find((o) => o.name === "ETag")!.value).toEqual(etag);
    expect(third.payload).toEqual(body.subarray(2048, 3072));
    const fifth = await resumed.request("0.01", "/down", { query: [], block2: block(4) });
    expect(blockOption(fifth, "Block2")).toEqual({ num: 4, more: false, szx: 6 });
    expect(fifth.payload).toEqual(body.subarray(4096));
    // Block 4 came from what block 2's request left in the layer: the handler was asked twice in all.
    expect(seen).toHaveLength(2);
  });

  it("answers 4.02 to a block past the end, and 4.08 as before on a resource that is not resumable", async () => {
    start();
    expect((await client(41_002).request("0.01", "/down", { query: [], block2: block(9) })).code).toBe("4.02");
    expect((await client(41_003).request("0.01", "/other", { query: [], block2: block(1) })).code).toBe("4.08");
  });
});
