import { generate, parse, type Packet, type ParsedPacket } from "coap-packet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { nextTurn } from "@iot/config/testing";
import { blockOption, uintOption } from "./fake-coap-client.js";
import { MemoryLink } from "./memory-link.js";
import { createMessageLayer, type CoapReply, type CoapRequest, type MessageLayerOptions } from "./message-layer.js";
import type { DatagramTarget } from "./transport/udp.js";
import pino from "pino";
import { encodeUint } from "./uint.js";

let link: MemoryLink;
/** Requests the device's handler was given. */
let seen: CoapRequest[];

const timing = { ackTimeoutMs: 1000, ackRandomFactor: 1, maxRetransmit: 2 };
const unused = async (): Promise<CoapReply> => ({ code: "4.04" });

/** A server layer paired with a device layer whose handler answers `reply(request)`. */
function withDevice(reply: (r: CoapRequest) => CoapReply, options: Partial<MessageLayerOptions> = {}) {
  seen = [];
  const device = async (r: CoapRequest) => (seen.push(r), reply(r));
  link = new MemoryLink(unused, device, { ...timing, ...options });
  return link.server;
}

/** A server layer paired with a scripted device that sees every packet and answers through `reply`. */
function withScript(
  script: (p: ParsedPacket, reply: (p: Packet) => void) => void,
  options: Partial<MessageLayerOptions> = {},
) {
  const device: DatagramTarget = { handle: (d, _from, send) => script(parse(d), (p) => send(generate(p))) };
  link = new MemoryLink(unused, device, { ...timing, ...options });
  return link.server;
}

const peer = () => link.devicePeer;
const body = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => 97 + (i % 26)));
const emptyAck = (p: ParsedPacket): Packet => ({ code: "0.00", messageId: p.messageId, ack: true });
const isRequest = (p: ParsedPacket) => p.code.startsWith("0.") && p.code !== "0.00";
const last = (num: number, szx: number) => ({ num, more: false, szx });

afterEach(() => {
  link.close();
  vi.useRealTimers();
});

describe("CoAP client role: requests and responses (RFC 7252 §5.2)", () => {
  it("sends a request with its path, query, formats and payload, and answers the piggybacked response", async () => {
    const server = withDevice(() => ({ code: "2.04", payload: "ok", contentFormat: 0, locationPath: "/3303/1" }));
    const response = await server.request(peer(), {
      method: "PUT",
      path: "/3/0/13",
      query: ["pmin=10", "Q", "pmin=20"],
      payload: "1700000000",
      contentFormat: 0,
      accept: 11542,
    });
    expect(response).toMatchObject({ code: "2.04", contentFormat: 0, locationPath: ["3303", "1"], peer: peer() });
    expect(response.payload.toString()).toBe("ok");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "PUT",
      path: ["3", "0", "13"],
      queryList: ["pmin=10", "Q", "pmin=20"],
      contentFormat: 0,
      accept: 11542,
    });
    expect(seen[0]!.payload.toString()).toBe("1700000000");
    const [sent] = link.sent("server");
    expect(sent).toMatchObject({ confirmable: true, code: "0.03" });
    expect(sent!.token.length).toBe(8);
  });

  it("takes a separate response after an empty ACK, matched by token, and ACKs it", async () => {
    const server = withScript((p, reply) => {
      if (!isRequest(p)) return;
      reply(emptyAck(p));
      setTimeout(
        () => reply({ code: "2.05", messageId: 4242, token: p.token, confirmable: true, payload: body(5) }),
        5,
      );
    });
    const response = await server.request(peer(), { method: "GET", path: "/3/0" });
    expect(response.payload).toEqual(body(5));
    await vi.waitFor(() => expect(link.sent("server").at(-1)).toMatchObject({ ack: true, messageId: 4242 }));
    expect(link.sent("server").at(-1)!.code).toBe("0.00");
  });

  it("takes a NON response to a NON request, and sends no ACK", async () => {
    const server = withScript((p, reply) => {
      if (isRequest(p)) reply({ code: "2.05", messageId: 7, token: p.token, payload: Buffer.from("non") });
    });
    const response = await server.request(peer(), { method: "GET", path: "/1/0/1", confirmable: false });
    expect(response.payload.toString()).toBe("non");
    await nextTurn(); // an ACK would be on its way in the same callbacks
    expect(link.sent("server").map((p) => [p.confirmable, p.ack])).toEqual([[false, false]]);
  });

  it("retransmits an unanswered CON request with doubling timeouts, then rejects timeout", async () => {
    vi.useFakeTimers();
    const server = withScript(() => {});
    const outcome = server.request(peer(), { method: "GET", path: "/3/0/0" }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(6999);
    const sent = link.sent("server");
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((p) => p.messageId)).size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ name: "CoapError", code: "timeout" });
  });

  it("rejects timeout when no separate response follows the empty ACK within requestTimeoutMs of sending", async () => {
    vi.useFakeTimers();
    const server = withScript((p, reply) => isRequest(p) && reply(emptyAck(p)), { requestTimeoutMs: 30_000 });
    const outcome = server.request(peer(), { method: "GET", path: "/3/0/0" }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(link.sent("server")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({
      code: "timeout",
      message: "the peer acknowledged the request but sent no response within 30000 ms",
    });
  });

  it("gives up an unacknowledged request requestTimeoutMs after sending it, before its retransmissions run out", async () => {
    vi.useFakeTimers();
    const server = withScript(() => {}, { maxRetransmit: 4, requestTimeoutMs: 5_000 }); // retransmissions: 31 s
    const outcome = server.request(peer(), { method: "GET", path: "/3/0/0" }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(link.sent("server")).toHaveLength(3); // at 0, 1 and 3 s
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ code: "timeout", message: "no answer from the peer within 5000 ms" });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(link.sent("server")).toHaveLength(3);
  });

  it("lets the next request to a device go once the device ACKs the first, whose separate response never comes", async () => {
    vi.useFakeTimers();
    // The device acknowledges /hang and never answers it; /3/0/0 it answers at once (RFC 7252 §4.7: an ACKed
    // request is no longer outstanding, so NSTART 1 does not hold the next one behind it).
    const server = withScript((p, reply) => {
      if (!isRequest(p)) return;
      const path = p.options.filter((o) => o.name === "Uri-Path").map((o) => o.value.toString());
      reply(path[0] === "hang" ? emptyAck(p) : { code: "2.05", messageId: p.messageId, ack: true, token: p.token });
    });
    const hanging = server.request(peer(), { method: "GET", path: "/hang" }).catch((e: unknown) => e);
    const read = server.request(peer(), { method: "GET", path: "/3/0/0" });
    await vi.advanceTimersByTimeAsync(1);
    expect(await read).toMatchObject({ code: "2.05" });
    await vi.advanceTimersByTimeAsync(93_000);
    expect(await hanging).toMatchObject({ code: "timeout" });
  });

  it("holds the next request while the first is neither ACKed nor answered, and sends it once the first times out", async () => {
    vi.useFakeTimers();
    const server = withScript(
      (p, reply) => {
        const path = p.options.filter((o) => o.name === "Uri-Path").map((o) => o.value.toString());
        if (isRequest(p) && path[0] !== "silent")
          reply({ code: "2.05", messageId: p.messageId, ack: true, token: p.token });
      },
      { maxRetransmit: 4, requestTimeoutMs: 2_000 },
    );
    const silent = server.request(peer(), { method: "GET", path: "/silent" }).catch((e: unknown) => e);
    let answered = false;
    const read = server.request(peer(), { method: "GET", path: "/3/0/0" }).then((r) => ((answered = true), r));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(answered).toBe(false);
    expect(link.sent("server").filter(isRequest)).toHaveLength(2); // /silent and its retransmission
    await vi.advanceTimersByTimeAsync(1);
    expect(await silent).toMatchObject({ code: "timeout" });
    expect(await read).toMatchObject({ code: "2.05" });
  });

  it("rejects reset when the device answers RST, and stops retransmitting", async () => {
    vi.useFakeTimers();
    const server = withScript((p, reply) => reply({ code: "0.00", messageId: p.messageId, reset: true }));
    const outcome = server.request(peer(), { method: "DELETE", path: "/3303/0" }).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await outcome).toMatchObject({ code: "reset" });
    expect(link.sent("server")).toHaveLength(1);
  });

  it("rejects reset at once when the device answers a NON request with RST", async () => {
    const server = withScript((p, reply) => reply({ code: "0.00", messageId: p.messageId, reset: true }));
    const request = server.request(peer(), { method: "GET", path: "/3/0/0", confirmable: false });
    await expect(request).rejects.toMatchObject({ code: "reset" });
  });

  it("stops retransmitting when the separate response comes although the empty ACK was lost", async () => {
    vi.useFakeTimers();
    const server = withScript((p, reply) => {
      if (!isRequest(p)) return;
      reply(emptyAck(p));
      reply({ code: "2.05", messageId: 99, token: p.token, confirmable: true, payload: Buffer.from("late") });
    });
    link.fate = (c) => (c.from === "device" && c.packet.code === "0.00" ? "drop" : "deliver");
    const response = await server.request(peer(), { method: "GET", path: "/5/0/3" });
    expect(response.payload.toString()).toBe("late");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(link.sent("server").filter(isRequest)).toHaveLength(1);
  });

  it("reassembles a response larger than a block, fetching the rest with Block2 and the same request", async () => {
    const payload = body(2500);
    const server = withDevice(() => ({ code: "2.05", payload, contentFormat: 11542 }));
    const response = await server.request(peer(), { method: "GET", path: "/3/0", accept: 11542 });
    expect(response).toMatchObject({ code: "2.05", contentFormat: 11542 });
    expect(response.payload).toEqual(payload);
    expect(seen).toHaveLength(1);
    const requests = link.sent("server").filter(isRequest);
    expect(requests.map((p) => blockOption(p, "Block2")?.num)).toEqual([undefined, 1, 2]);
    expect(requests.map((p) => uintOption(p, "Accept"))).toEqual([11542, 11542, 11542]);
  });

  it("asks for smaller blocks from the first request when its maxSzx is below 6", async () => {
    const payload = body(600);
    const server = withDevice(() => ({ code: "2.05", payload }), { maxSzx: 4 });
    expect((await server.request(peer(), { method: "GET", path: "/3/0" })).payload).toEqual(payload);
    const blocks = link
      .sent("server")
      .filter(isRequest)
      .map((p) => blockOption(p, "Block2"));
    expect(blocks).toEqual([0, 1, 2].map((num) => ({ num, more: false, szx: 4 })));
  });

  it("rejects incomplete when the representation changes between blocks, and too-large past maxBodyBytes", async () => {
    let etag = 1;
    const server = withScript((p, reply) => {
      if (!isRequest(p)) return;
      const num = blockOption(p, "Block2")?.num ?? 0;
      const options = [
        { name: "ETag" as const, value: Buffer.from([etag++]) },
        { name: "Block2" as const, value: encodeUint(num * 16 + 8 + 4) },
        { name: "Size2" as const, value: encodeUint(p.options.some((o) => o.name === "Uri-Query") ? 99_999 : 1024) },
      ];
      reply({ code: "2.05", messageId: p.messageId, ack: true, token: p.token, options, payload: body(256) });
    });
    await expect(server.request(peer(), { method: "GET", path: "/x" })).rejects.toMatchObject({ code: "incomplete" });
    await expect(server.request(peer(), { method: "GET", path: "/x", query: ["big"] })).rejects.toMatchObject({
      code: "too-large",
    });
  });

  it("ACKs a duplicate of a CON separate response again and takes it once; RSTs a response for no request", async () => {
    const server = withScript((p, reply) => {
      if (!isRequest(p)) return;
      reply(emptyAck(p));
      const response = { code: "2.05", messageId: 500, token: p.token, confirmable: true, payload: Buffer.from("1") };
      reply(response);
      reply(response);
      reply({ ...response, messageId: 501, token: Buffer.from("stranger") });
    });
    expect((await server.request(peer(), { method: "GET", path: "/a" })).payload.toString()).toBe("1");
    await vi.waitFor(() => expect(link.sent("server")).toHaveLength(4));
    const answers = link.sent("server").slice(1);
    expect(answers.map((p) => [p.messageId, p.ack ? "ACK" : p.reset ? "RST" : "?"])).toEqual([
      [500, "ACK"],
      [500, "ACK"],
      [501, "RST"],
    ]);
  });

  it("keeps NSTART requests in flight to a device and queues the rest; refuses busy past the bounds", async () => {
    const answers: ((p: Packet) => void)[] = [];
    const held: ParsedPacket[] = [];
    const server = withScript((p, reply) => isRequest(p) && (held.push(p), answers.push(reply)), {
      maxRequestsPerPeer: 2,
      maxRequests: 3,
    });
    const first = server.request(peer(), { method: "GET", path: "/1" });
    const second = server.request(peer(), { method: "GET", path: "/2" });
    await expect(server.request(peer(), { method: "GET", path: "/3" })).rejects.toMatchObject({ code: "busy" });
    const elsewhere = server.request({ address: "10.0.0.3", port: 5683 }, { method: "GET", path: "/4" });
    await expect(server.request({ address: "10.0.0.4", port: 1 }, { method: "GET", path: "/5" })).rejects.toThrow(
      /requests in all/,
    );
    await vi.waitFor(() => expect(held).toHaveLength(2));
    expect(link.log.map((c) => c.to.address)).toEqual(["10.0.0.2", "10.0.0.3"]);
    const ok = (p: ParsedPacket): Packet => ({ code: "2.05", messageId: p.messageId, ack: true, token: p.token });
    answers[0]!(ok(held[0]!));
    await first;
    await vi.waitFor(() => expect(held).toHaveLength(3));
    answers[2]!(ok(held[2]!));
    await second;
    void elsewhere.catch(() => {});
  });

  it("uploads a body larger than a block with Block1 and Size1; the device's handler gets it whole, once", async () => {
    const firmware = body(3000);
    const server = withDevice((r) => ({ code: "2.04", payload: r.payload.length === 3000 ? body(1500) : "" }));
    const response = await server.request(peer(), { method: "PUT", path: "/5/0/0", payload: firmware });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.payload).toEqual(firmware);
    expect(response.code).toBe("2.04");
    expect(response.payload).toEqual(body(1500)); // its answer, larger than a block, fetched with Block2
    const requests = link.sent("server").filter(isRequest);
    expect(requests.map((p) => blockOption(p, "Block1"))).toEqual([
      { num: 0, more: true, szx: 6 },
      { num: 1, more: true, szx: 6 },
      { num: 2, more: false, szx: 6 },
      undefined,
    ]);
    expect(requests.map((p) => uintOption(p, "Size1"))).toEqual([3000, undefined, undefined, undefined]);
    expect([blockOption(requests[3]!, "Block2"), requests[3]!.payload.length]).toEqual([last(1, 6), 0]);
  });

  it("sends the next blocks of an upload in the smaller size the device asks for in its 2.31", async () => {
    seen = [];
    const device = async (r: CoapRequest) => (seen.push(r), { code: "2.04" });
    link = new MemoryLink(unused, device, timing, { maxSzx: 4 });
    const firmware = body(1500);
    expect((await link.server.request(peer(), { method: "PUT", path: "/5/0/0", payload: firmware })).code).toBe("2.04");
    expect(seen[0]!.payload).toEqual(firmware);
    const blocks = link
      .sent("server")
      .filter(isRequest)
      .map((p) => blockOption(p, "Block1"));
    expect(blocks).toEqual([{ num: 0, more: true, szx: 6 }, ...[4, 5].map((num) => ({ num, more: num < 5, szx: 4 }))]);
  });

  it("answers the device's refusal of an upload (4.13 with its limit) instead of sending more blocks", async () => {
    seen = [];
    link = new MemoryLink(unused, async () => ({ code: "2.04" }), timing, { maxBodyBytes: 1000 });
    const response = await link.server.request(peer(), { method: "PUT", path: "/5/0/0", payload: body(5000) });
    expect(response.code).toBe("4.13");
    expect(link.sent("server").filter(isRequest)).toHaveLength(1);
  });

  it("refuses an over-long path segment, and requests without a transport", async () => {
    const server = withDevice(() => ({ code: "2.04" }));
    const long = server.request(peer(), { method: "GET", path: ["x".repeat(256)] });
    await expect(long).rejects.toMatchObject({ code: "invalid" });
    const alone = createMessageLayer(unused, { logger: pino({ level: "silent" }), maxBodyBytes: 100 });
    await expect(alone.request(peer(), { method: "GET", path: "/" })).rejects.toMatchObject({ code: "invalid" });
    alone.close();
  });

  it("rejects pending and waiting requests closed when the layer closes, and later ones too", async () => {
    const server = withScript(() => {});
    const pending = server.request(peer(), { method: "GET", path: "/1" });
    const waiting = server.request(peer(), { method: "GET", path: "/2" });
    await vi.waitFor(() => expect(link.sent("server")).toHaveLength(1)); // the first is in flight
    server.close();
    await expect(pending).rejects.toMatchObject({ code: "closed" });
    await expect(waiting).rejects.toMatchObject({ code: "closed" });
    await expect(server.request(peer(), { method: "GET", path: "/3" })).rejects.toMatchObject({ code: "closed" });
  });
});
