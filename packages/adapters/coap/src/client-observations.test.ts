import { generate } from "coap-packet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { nextTurn } from "@iot/config/testing";
import type { ClientResponse } from "./client-exchange.js";
import { MemoryLink } from "./memory-link.js";
import type { CoapReply, CoapRequest, MessageLayerOptions } from "./message-layer.js";
import { encodeUint } from "./uint.js";

let link: MemoryLink;
/** Requests the device's handler was given: the registration's `notify` sends notifications. */
let seen: CoapRequest[];
/** Notifications delivered to the listener. */
let got: ClientResponse[];

const unused = async (): Promise<CoapReply> => ({ code: "4.04" });
const listener = (n: ClientResponse) => void got.push(n);
const texts = () => got.map((n) => n.payload.toString());

/** A server layer paired with a device layer whose handler takes observations (or answers `reply`). */
function start(reply?: (r: CoapRequest) => CoapReply, options: Partial<MessageLayerOptions> = {}) {
  seen = [];
  got = [];
  const device = async (r: CoapRequest): Promise<CoapReply> => {
    seen.push(r);
    if (reply) return reply(r);
    return r.observe === 0 ? { code: "2.05", observe: 1, payload: "20.5", contentFormat: 0 } : { code: "2.05" };
  };
  link = new MemoryLink(unused, device, { ackTimeoutMs: 50, ackRandomFactor: 1, maxRetransmit: 1, ...options });
  return link.server;
}

const temperature = { method: "GET", path: "/3303/0/5700", accept: 0 } as const;
/** A notification as the device's datagram: CON unless told, with Observe `sequence` unless null. */
const raw = (token: Buffer, messageId: number, sequence: number | null, payload: string, extra = {}) =>
  generate({
    code: "2.05",
    messageId,
    token,
    confirmable: true,
    options: sequence === null ? [] : [{ name: "Observe", value: encodeUint(sequence) }],
    payload: Buffer.from(payload),
    ...extra,
  });

afterEach(() => {
  link.close();
  vi.useRealTimers();
});

describe("CoAP client role: observe (RFC 7641)", () => {
  it("registers with Observe 0 and delivers each CON notification, which the device sees ACKed", async () => {
    const server = start();
    const observation = await server.observe(link.devicePeer, temperature, listener);
    expect(observation.active).toBe(true);
    expect(observation.response).toMatchObject({ code: "2.05", observe: 1, contentFormat: 0 });
    expect(observation.response.payload.toString()).toBe("20.5");
    expect(seen[0]).toMatchObject({ observe: 0, path: ["3303", "0", "5700"], accept: 0 });
    expect(seen[0]!.token).toEqual(observation.token);
    expect(await seen[0]!.notify(2, "2.05", Buffer.from("21"))).toBe("ack");
    expect(await seen[0]!.notify(3, "2.05", Buffer.from("22"))).toBe("ack");
    expect(texts()).toEqual(["21", "22"]);
    expect(got[0]).toMatchObject({ code: "2.05", observe: 2, peer: link.devicePeer });
  });

  it("sends a notification with the Content-Format its sender names, and 42 for a payload without one", async () => {
    const server = start();
    await server.observe(link.devicePeer, temperature, listener);
    expect(await seen[0]!.notify(2, "2.05", Buffer.from("21"), 11542)).toBe("ack");
    expect(await seen[0]!.notify(3, "2.05", Buffer.from("22"))).toBe("ack");
    await vi.waitFor(() => expect(got.map((n) => n.contentFormat)).toEqual([11542, 42]));
  });

  it("delivers NON notifications without ACKing them", async () => {
    const server = start();
    const { token } = await server.observe(link.devicePeer, temperature, listener);
    const before = link.sent("server").length;
    link.toServer(raw(token, 900, 7, "non", { confirmable: false }));
    await vi.waitFor(() => expect(texts()).toEqual(["non"]));
    await nextTurn(); // an ACK would be on its way in the same callbacks
    expect(link.sent("server")).toHaveLength(before);
  });

  it("drops a notification older than the newest by the 24-bit rule, still ACKing it, until 128 s pass", async () => {
    vi.useFakeTimers();
    const server = start();
    const { token } = await server.observe(link.devicePeer, temperature, listener);
    const sequence = [10, 8, 2 ** 23 + 9, 2 ** 23 + 20, 3, 3];
    sequence.forEach((s, i) => link.toServer(raw(token, 100 + i, s, `n${s}`)));
    await vi.advanceTimersByTimeAsync(1);
    expect(texts()).toEqual(["n10", `n${2 ** 23 + 9}`, `n${2 ** 23 + 20}`, "n3"]);
    expect(link.sent("server").filter((p) => p.ack && p.messageId >= 100)).toHaveLength(6);
    await vi.advanceTimersByTimeAsync(128_001);
    link.toServer(raw(token, 200, 1, "after a long silence"));
    await vi.advanceTimersByTimeAsync(1);
    expect(texts().at(-1)).toBe("after a long silence");
  });

  it("ACKs a duplicate CON notification again and delivers it once", async () => {
    const server = start();
    const { token } = await server.observe(link.devicePeer, temperature, listener);
    const n = raw(token, 321, 5, "once");
    link.toServer(n);
    link.toServer(n);
    await vi.waitFor(() => expect(link.sent("server").filter((p) => p.messageId === 321)).toHaveLength(2));
    expect(texts()).toEqual(["once"]);
    expect(
      link
        .sent("server")
        .filter((p) => p.messageId === 321)
        .map((p) => p.ack),
    ).toEqual([true, true]);
  });

  it("answers RST to a notification once the observation is forgotten", async () => {
    const server = start();
    const observation = await server.observe(link.devicePeer, temperature, listener);
    observation.forget();
    expect(observation.active).toBe(false);
    expect(await seen[0]!.notify(2, "2.05", Buffer.from("unwanted"))).toBe("reset");
    link.toServer(raw(observation.token, 777, 3, "NON too", { confirmable: false }));
    await vi.waitFor(() => expect(link.sent("server").find((p) => p.messageId === 777)).toMatchObject({ reset: true }));
    expect(got).toEqual([]);
  });

  it("cancels with a GET with Observe 1 and the same token, and answers its response", async () => {
    const server = start((r) => (r.observe === 0 ? { code: "2.05", observe: 4 } : { code: "2.05", payload: "last" }));
    const observation = await server.observe(link.devicePeer, temperature, listener);
    const response = await observation.cancel();
    expect(response.payload.toString()).toBe("last");
    expect(observation.active).toBe(false);
    expect(seen.map((r) => [r.method, r.observe, r.token.toString("hex")])).toEqual([
      ["GET", 0, observation.token.toString("hex")],
      ["GET", 1, observation.token.toString("hex")],
    ]);
    expect(seen[1]!.path).toEqual(["3303", "0", "5700"]);
  });

  it("takes a notification from the device's new address by its token, and follows the device there", async () => {
    const server = start();
    const observation = await server.observe(link.devicePeer, temperature, listener);
    link.devicePeer = { address: "10.9.9.9", port: 40_001 };
    expect(await seen[0]!.notify(2, "2.05", Buffer.from("moved"))).toBe("ack");
    expect(got[0]).toMatchObject({ peer: { address: "10.9.9.9", port: 40_001 } });
    expect(observation.peer).toEqual({ address: "10.9.9.9", port: 40_001 });
    await observation.cancel();
    expect(link.log.at(-2)).toMatchObject({ from: "server", to: { address: "10.9.9.9" } });
  });

  it("ends the observation on an error notification or one without Observe, delivering it", async () => {
    const server = start();
    const first = await server.observe(link.devicePeer, temperature, listener);
    expect(await seen[0]!.notify(2, "4.04", Buffer.from("gone"))).toBe("ack");
    expect(first.active).toBe(false);
    const second = await server.observe(link.devicePeer, temperature, listener);
    link.toServer(raw(second.token, 55, null, "plain"));
    await vi.waitFor(() => expect(second.active).toBe(false));
    expect(got.map((n) => n.code)).toEqual(["4.04", "2.05"]);
    expect(await seen[0]!.notify(3, "2.05", Buffer.from("x"))).toBe("reset");
  });

  it("is not active when the device answers without Observe or with an error", async () => {
    const server = start((r) => (r.path[0] === "404" ? { code: "4.04" } : { code: "2.05", payload: "no observe" }));
    const plain = await server.observe(link.devicePeer, { method: "GET", path: "/1" }, listener);
    expect([plain.active, plain.response.payload.toString()]).toEqual([false, "no observe"]);
    const missing = await server.observe(link.devicePeer, { method: "GET", path: "/404" }, listener);
    expect([missing.active, missing.response.code]).toEqual([false, "4.04"]);
  });

  it("fetches the rest of a notification larger than a block and delivers it whole", async () => {
    const server = start();
    await server.observe(link.devicePeer, temperature, listener);
    const big = Buffer.alloc(2500, "z");
    expect(await seen[0]!.notify(2, "2.05", big)).toBe("ack");
    await vi.waitFor(() => expect(got).toHaveLength(1));
    expect(got[0]!.payload).toEqual(big);
    expect(seen).toHaveLength(1); // the later blocks came from the device layer's representation, not its handler
    const blockRequests = link
      .sent("server")
      .filter((p) => p.code === "0.01")
      .slice(1);
    expect(blockRequests.map((p) => p.options.some((o) => o.name === "Observe"))).toEqual([false, false]);
  });

  it("refuses busy past the observations per peer, and takes a new one once one ends", async () => {
    const server = start(undefined, { maxObservationsPerPeer: 2 });
    const a = await server.observe(link.devicePeer, temperature, listener);
    await server.observe(link.devicePeer, temperature, listener);
    await expect(server.observe(link.devicePeer, temperature, listener)).rejects.toMatchObject({ code: "busy" });
    a.forget();
    expect((await server.observe(link.devicePeer, temperature, listener)).active).toBe(true);
  });

  it("forgets its observation when the registration fails", async () => {
    vi.useFakeTimers();
    const server = start(undefined, { maxObservationsPerPeer: 1 });
    link.fate = () => "drop";
    const failed = server.observe(link.devicePeer, temperature, listener).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await failed).toMatchObject({ code: "timeout" });
    link.fate = () => "deliver";
    const next = server.observe(link.devicePeer, temperature, listener);
    await vi.advanceTimersByTimeAsync(1);
    expect((await next).active).toBe(true);
  });
});
