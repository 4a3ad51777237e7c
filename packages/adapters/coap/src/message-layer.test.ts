import { Writable } from "node:stream";
import pino from "pino";
import { quietFor, nextTurn } from "@iot/config/testing";
import { afterEach, describe, expect, it } from "vitest";
import { generate } from "coap-packet";
import { blockOption, FakeCoapClient, uintOption } from "./fake-coap-client.js";
import { MemoryLink } from "./memory-link.js";
import { encodeUint } from "./uint.js";
import {
  createMessageLayer,
  type CoapReply,
  type CoapRequest,
  type MessageLayer,
  type MessageLayerOptions,
} from "./message-layer.js";

let layer: MessageLayer;
let client: FakeCoapClient;
/** Every request the handler was given. */
let seen: CoapRequest[];
/** Log lines (parsed JSON). */
let logs: Record<string, unknown>[];

/** A layer whose handler records the request and answers `reply(request)` (by default 2.04). */
function start(
  reply: (r: CoapRequest) => CoapReply | Promise<CoapReply> = () => ({ code: "2.04" }),
  options: Partial<MessageLayerOptions> = {},
) {
  seen = [];
  logs = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  layer = createMessageLayer(
    async (r) => {
      seen.push(r);
      return reply(r);
    },
    {
      logger: pino({ level: "debug" }, sink),
      maxBodyBytes: 4096,
      ackTimeoutMs: 50,
      maxRetransmit: 1,
      describe: ({ query }) => ({ deviceUsername: query.get("u") }),
      ...options,
    },
  );
  client = new FakeCoapClient(layer);
}

afterEach(() => layer.close());

const body = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => 65 + (i % 26)));
const more = (num: number, szx = 4) => ({ num, more: true, szx });
const last = (num: number, szx = 4) => ({ num, more: false, szx });

/** Uploads `payload` with POST in blocks of 2^(szx+4) bytes; answers every response, the last one's last. */
async function upload(payload: Buffer, szx = 4, extra: { size1?: number; query?: string[] } = {}) {
  const size = 16 << szx;
  const answers = [];
  for (let num = 0; num * size < payload.length || num === 0; num++) {
    const chunk = payload.subarray(num * size, (num + 1) * size);
    const isLast = (num + 1) * size >= payload.length;
    const block1 = isLast ? last(num, szx) : more(num, szx);
    const answer = await client.request("0.02", "/up", { payload: chunk, block1, ...extra });
    answers.push(answer);
    if (!answer.code.startsWith("2.")) break;
  }
  return answers;
}

describe("CoAP message layer, Block1 uploads (RFC 7959 §2.5)", () => {
  it("answers 2.31 Continue to each block and hands the handler the whole body once, with the last block's Block1", async () => {
    start();
    const payload = body(3000);
    const answers = await upload(payload, 4, { size1: 3000 });
    expect(answers.map((a) => a.code)).toEqual([...Array<string>(11).fill("2.31"), "2.04"]);
    expect(blockOption(answers[0]!, "Block1")).toEqual(more(0));
    expect(blockOption(answers[11]!, "Block1")).toEqual(last(11));
    expect(seen).toHaveLength(1);
    expect(seen[0]!.payload).toEqual(payload);
  });

  it("asks the client for smaller blocks when it sends larger ones than the layer takes", async () => {
    start(undefined, { maxSzx: 4 });
    const first = await client.request("0.02", "/up", { payload: body(1024), block1: more(0, 6) });
    expect(first.code).toBe("2.31");
    expect(blockOption(first, "Block1")).toEqual(more(0, 4));
    const rest = await client.request("0.02", "/up", { payload: body(256), block1: last(4, 4) });
    expect(rest.code).toBe("2.04");
    expect(seen[0]!.payload.length).toBe(1280);
  });

  it("answers 4.08 to a block that does not follow the previous one, and never calls the handler", async () => {
    start();
    expect((await client.request("0.02", "/up", { payload: body(256), block1: more(1) })).code).toBe("4.08");
    expect((await client.request("0.02", "/up", { payload: body(256), block1: more(0) })).code).toBe("2.31");
    expect((await client.request("0.02", "/up", { payload: body(10), block1: last(2) })).code).toBe("4.08");
    expect(seen).toEqual([]);
  });

  it("answers a retransmitted block with the same answer, adding it once", async () => {
    start();
    await client.request("0.02", "/up", { payload: body(256), block1: more(0) });
    const again = client.build("0.02", "/up", { payload: body(256), block1: more(1), messageId: 7000, token: "x" });
    client.send(again);
    const answers = [await client.next((p) => p.messageId === 7000)];
    client.send(again);
    answers.push(await client.next((p) => p.messageId === 7000));
    expect(answers.map((a) => a.code)).toEqual(["2.31", "2.31"]);
    await client.request("0.02", "/up", { payload: body(1), block1: last(2) });
    expect(seen[0]!.payload.length).toBe(513);
  });

  it("keeps two senders' uploads to the same resource apart", async () => {
    start();
    const other = new FakeCoapClient(layer, { address: "127.0.0.2", port: 40_000 });
    await client.request("0.02", "/up", { payload: Buffer.alloc(256, 1), block1: more(0) });
    await other.request("0.02", "/up", { payload: Buffer.alloc(256, 2), block1: more(0) });
    await client.request("0.02", "/up", { payload: Buffer.alloc(1, 1), block1: last(1) });
    await other.request("0.02", "/up", { payload: Buffer.alloc(1, 2), block1: last(1) });
    expect(seen.map((r) => [r.peer.address, new Set(r.payload)])).toEqual([
      ["127.0.0.1", new Set([1])],
      ["127.0.0.2", new Set([2])],
    ]);
  });

  it("answers 4.13 with Size1 = the limit to an announced Size1 over it, before taking any block", async () => {
    start();
    const a = await client.request("0.02", "/up", {
      payload: body(256),
      block1: more(0),
      size1: 5000,
      query: ["u=big"],
    });
    expect(a.code).toBe("4.13");
    expect(uintOption(a, "Size1")).toBe(4096);
    expect(seen).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ deviceUsername: "big", size: 5000, limit: 4096 }));
  });

  it("answers 4.13 with Size1 once the accumulated body passes the limit, and forgets the upload", async () => {
    start();
    const answers = await upload(body(5000));
    expect(answers.map((a) => a.code)).toEqual([...Array<string>(16).fill("2.31"), "4.13"]);
    expect(uintOption(answers[16]!, "Size1")).toBe(4096);
    expect((await client.request("0.02", "/up", { payload: body(256), block1: more(1) })).code).toBe("4.08");
    expect(seen).toEqual([]);
  });

  it("answers 4.13 with Size1 to a request without blocks whose body is over the limit, naming the device", async () => {
    start(undefined, { maxBodyBytes: 100 });
    const a = await client.request("0.02", "/up", { payload: body(101), query: ["c=dev-9", "u=nine"] });
    expect(a.code).toBe("4.13");
    expect(uintOption(a, "Size1")).toBe(100);
    expect(logs).toContainEqual(
      expect.objectContaining({ deviceUsername: "nine", size: 101, msg: expect.stringContaining("larger") }),
    );
    expect((await client.request("0.02", "/up", { payload: body(100) })).code).toBe("2.04");
    expect(seen.map((r) => r.payload.length)).toEqual([100]);
  });

  it("refuses more concurrent uploads than maxTransfers with 5.03 and Max-Age", async () => {
    start(undefined, { maxTransfers: 1 });
    await client.request("0.02", "/a", { payload: body(256), block1: more(0) });
    const busy = await client.request("0.02", "/b", { payload: body(256), block1: more(0) });
    expect(busy.code).toBe("5.03");
    expect(uintOption(busy, "Max-Age")).toBeGreaterThan(0);
    expect((await client.request("0.02", "/a", { payload: body(1), block1: last(1) })).code).toBe("2.04");
    expect((await client.request("0.02", "/b", { payload: body(256), block1: more(0) })).code).toBe("2.31");
  });

  it("frees an upload abandoned for the transfer timeout", async () => {
    start(undefined, { transferTimeoutMs: 30 });
    await client.request("0.02", "/up", { payload: body(256), block1: more(0) });
    await quietFor(80, "past the 30 ms transfer timeout");
    expect((await client.request("0.02", "/up", { payload: body(1), block1: last(1) })).code).toBe("4.08");
  });

  it("answers 4.02 to a malformed Block1 and 4.00 to the reserved SZX 7", async () => {
    start();
    const bad = (value: number[], messageId: number) => {
      const d = client.build("0.02", "/up", { payload: "x", messageId });
      // Block1 (27) is the last option: append it with delta 27 - 15 (Uri-Query) = 12.
      const at = d.indexOf(0xff);
      client.send(
        Buffer.concat([d.subarray(0, at), Buffer.from([(12 << 4) | value.length, ...value]), d.subarray(at)]),
      );
      return client.next((p) => p.messageId === messageId);
    };
    expect((await bad([0, 0, 0, 0x0c], 9001)).code).toBe("4.02");
    expect((await bad([0x0f], 9002)).code).toBe("4.00");
    expect(seen).toEqual([]);
  });
});

describe("CoAP message layer, Block2 answers (RFC 7959 §2.4, §3.4)", () => {
  it("sends an answer larger than a block as its first block, and later blocks from the same representation", async () => {
    const payload = body(2500);
    start(() => ({ code: "2.05", payload }));
    const first = await client.request("0.01", "/down");
    expect(first.code).toBe("2.05");
    expect(blockOption(first, "Block2")).toEqual({ num: 0, more: true, szx: 6 });
    expect(uintOption(first, "Size2")).toBe(2500);
    const etag = first.options.find((o) => o.name === "ETag")!.value;
    const second = await client.request("0.01", "/down", { block2: last(1, 6) });
    const third = await client.request("0.01", "/down", { block2: last(2, 6) });
    expect(blockOption(third, "Block2")).toEqual({ num: 2, more: false, szx: 6 });
    expect(third.options.find((o) => o.name === "ETag")!.value).toEqual(etag);
    expect(Buffer.concat([first.payload, second.payload, third.payload])).toEqual(payload);
    expect(seen).toHaveLength(1);
  });

  it("uses the smaller block size a client asks for in its first request", async () => {
    const payload = body(600);
    start(() => ({ code: "2.05", payload }));
    const first = await client.request("0.01", "/down", { block2: last(0, 4) });
    expect(blockOption(first, "Block2")).toEqual(more(0, 4));
    const rest = [];
    for (let num = 1; num < 3; num++) rest.push(await client.request("0.01", "/down", { block2: last(num, 4) }));
    expect(rest.map((r) => blockOption(r, "Block2"))).toEqual([more(1, 4), last(2, 4)]);
    expect(Buffer.concat([first.payload, ...rest.map((r) => r.payload)])).toEqual(payload);
  });

  it("answers 4.02 to a block past the end and 4.08 to a later block of an answer it no longer holds", async () => {
    start(() => ({ code: "2.05", payload: body(2000) }));
    expect((await client.request("0.01", "/gone", { block2: last(1, 6) })).code).toBe("4.08");
    await client.request("0.01", "/down");
    expect((await client.request("0.01", "/down", { block2: last(2, 6) })).code).toBe("4.02");
    expect(seen).toHaveLength(1);
  });

  it("sends a notification larger than a block as its first block; the client GETs the rest without Observe", async () => {
    const command = body(1500);
    let registration: CoapRequest | undefined;
    start((r) => {
      registration = r;
      return { code: "2.05", observe: 1 };
    });
    expect((await client.request("0.01", "/obs", { observe: 0, token: "ob", block2: last(0, 5) })).code).toBe("2.05");
    const confirmed = registration!.notify(2, "2.05", command);
    const n = await client.next((p) => p.token.toString() === "ob" && p.confirmable);
    expect(uintOption(n, "Observe")).toBe(2);
    expect(blockOption(n, "Block2")).toEqual(more(0, 5));
    expect(uintOption(n, "Size2")).toBe(1500);
    client.answer(n.messageId);
    expect(await confirmed).toBe("ack");
    const parts = [n.payload];
    for (let num = 1; num * 512 < 1500; num++) {
      parts.push((await client.request("0.01", "/obs", { block2: last(num, 5) })).payload);
    }
    expect(Buffer.concat(parts)).toEqual(command);
    expect(seen).toHaveLength(1);
  });

  it("sends a notification made while the registration is being answered only after that answer", async () => {
    start((r) => {
      void r.notify(2, "2.05", Buffer.from("queued"));
      return { code: "2.05", observe: 1 };
    });
    client.send(client.build("0.01", "/obs", { observe: 0, token: "q" }));
    await expect.poll(() => client.inbox.length).toBe(2);
    expect(client.inbox.map((p) => [p.ack, p.confirmable, p.payload.toString()])).toEqual([
      [true, false, ""],
      [false, true, "queued"],
    ]);
  });
});

describe("CoAP message layer, request and reply options (RFC 7252 §5.10)", () => {
  it("hands the handler the Uri-Query list as sent, with flags and repeats, beside the map", async () => {
    start();
    await client.request("0.02", "/rd", { query: ["ep=urn:imei:490154203237518", "lt=60", "Q", "b=U", "lt=90"] });
    expect(seen[0]!.queryList).toEqual(["ep=urn:imei:490154203237518", "lt=60", "Q", "b=U", "lt=90"]);
    expect(seen[0]!.query).toEqual(
      new Map([
        ["ep", "urn:imei:490154203237518"],
        ["lt", "90"],
        ["b", "U"],
      ]),
    );
  });

  it("hands the handler the request's Content-Format and Accept, undefined when absent", async () => {
    start();
    await client.request("0.02", "/rd", { payload: "</1/0>", contentFormat: 40, accept: 11542 });
    await client.request("0.01", "/x");
    expect(seen.map((r) => [r.contentFormat, r.accept])).toEqual([
      [40, 11542],
      [undefined, undefined],
    ]);
  });

  it("answers with the handler's Location-Path, Content-Format and Max-Age", async () => {
    start((r) =>
      r.path[0] === "rd"
        ? { code: "2.01", locationPath: "/rd/a1B2" }
        : { code: "2.05", payload: "[]", contentFormat: 110, maxAge: 30 },
    );
    const created = await client.request("0.02", "/rd", { payload: "</1/0>" });
    expect(created.code).toBe("2.01");
    expect(created.options.filter((o) => o.name === "Location-Path").map((o) => o.value.toString())).toEqual([
      "rd",
      "a1B2",
    ]);
    const content = await client.request("0.01", "/3/0");
    expect([uintOption(content, "Content-Format"), uintOption(content, "Max-Age")]).toEqual([110, 30]);
  });

  it("keeps saying 42 (octet-stream) on a 2.xx with a payload when the handler names no format", async () => {
    start(() => ({ code: "2.05", payload: "raw" }));
    expect(uintOption(await client.request("0.01", "/x"), "Content-Format")).toBe(42);
  });

  it("says the handler's Content-Format on every block of a large answer", async () => {
    start(() => ({ code: "2.05", payload: body(2100), contentFormat: 11542 }));
    const first = await client.request("0.01", "/3");
    const second = await client.request("0.01", "/3", { block2: last(1, 6) });
    expect([uintOption(first, "Content-Format"), uintOption(second, "Content-Format")]).toEqual([11542, 11542]);
  });

  it("answers a CoAP ping (an empty CON) with RST, and drops an empty NON", async () => {
    start();
    client.send(Buffer.from([0x40, 0x00, 0x01, 0x02]));
    expect(await client.next((p) => p.messageId === 0x0102)).toMatchObject({ reset: true, code: "0.00" });
    client.send(Buffer.from([0x50, 0x00, 0x01, 0x03]));
    // Handled in order: an answer to the NON would come before the RST of this second ping.
    client.send(Buffer.from([0x40, 0x00, 0x01, 0x04]));
    await client.next((p) => p.messageId === 0x0104);
    expect(client.inbox).toEqual([]);
  });
});

describe("CoAP message layer, malformed datagrams", () => {
  it("drops mutated and random datagrams one by one, never failing inside, and keeps serving both roles", async () => {
    const errors: unknown[] = [];
    const logger = pino({ level: "error" }, new Writable({ write: (c: Buffer, _e, done) => (errors.push(c), done()) }));
    const link = new MemoryLink(
      async () => ({ code: "2.04" }),
      async (r) => ({ code: "2.05", observe: r.observe === 0 ? 1 : undefined, payload: "v" }),
      { logger, ackTimeoutMs: 20, maxRetransmit: 1 },
    );
    const observation = await link.server.observe(link.devicePeer, { method: "GET", path: "/3/0/9" }, () => {});
    const token = observation.token;
    const observe = (n: number) => [{ name: "Observe" as const, value: encodeUint(n) }];
    const samples = [
      new FakeCoapClient(link.server).build("0.02", "/rd", { payload: "</1/0>", block1: more(0) }),
      generate({
        code: "2.05",
        messageId: 1,
        token,
        confirmable: true,
        options: observe(9),
        payload: Buffer.from("1"),
      }),
      generate({ code: "2.05", messageId: 2, token, ack: true, payload: Buffer.from("x") }),
      generate({ code: "0.00", messageId: 3, reset: true }),
      generate({ code: "4.04", messageId: 4, token: Buffer.from("abc"), payload: Buffer.alloc(300, 1) }),
    ];
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    for (let i = 0; i < 3000; i++) {
      const d = Buffer.from(samples[i % samples.length]!);
      const kind = random(3);
      const mutated =
        kind === 0
          ? d.subarray(0, random(d.length))
          : kind === 1
            ? Buffer.from(Array.from({ length: random(40) }, () => random(256)))
            : d.map((b) => (random(8) === 0 ? random(256) : b));
      link.server.handle(Buffer.from(mutated), link.devicePeer, () => {});
    }
    await nextTurn();
    expect((await link.server.request(link.devicePeer, { method: "GET", path: "/3/0/0" })).code).toBe("2.05");
    const answer = await new FakeCoapClient(link.server).request("0.02", "/up", { payload: "1" });
    expect(answer.code).toBe("2.04");
    expect(errors.map(String)).toEqual([]);
    link.close();
  });
});
