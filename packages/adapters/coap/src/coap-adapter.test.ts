import { generate } from "coap-packet";
import pino from "pino";
import { afterEach, describe, expect, it, vi } from "vitest";
import { nextTurn } from "@iot/config/testing";
import { FakeRegistryClient } from "@iot/adapter-core";
import { createCoapAdapter, type CoapAdapter } from "./coap-adapter.js";
import { blockOption, FakeCoapClient, uintOption } from "./fake-coap-client.js";
import { EXCHANGE_MS } from "./message-layer.js";

const device = {
  deviceIntId: 1,
  deviceId: "dev-1",
  username: "u1",
  token: "t1",
  policies: [{ id: 1, topic: "secret/#", access: 3 as const, allow: false }],
};

let registry: FakeRegistryClient;
let adapter: CoapAdapter;
let client: FakeCoapClient;

/** The adapter on a fake registry, fed datagrams in memory by one test client. */
function start(keepAliveSeconds = 60, maxMessageSize = 262_144, bufferLimit?: number) {
  registry = new FakeRegistryClient({ devices: [device], bufferLimit });
  registry.start();
  adapter = createCoapAdapter({
    registry,
    logger: pino({ level: "silent" }),
    policyDefault: "allow",
    keepAliveSeconds,
    maxMessageSize,
    ackTimeoutMs: 50,
    maxRetransmit: 1,
  });
  client = new FakeCoapClient(adapter);
}

afterEach(() => adapter.close());

const send = (datagram: Buffer) => client.send(datagram);
const request: FakeCoapClient["request"] = (...args) => client.request(...args);
const next: FakeCoapClient["next"] = (...args) => client.next(...args);

describe("CoAP adapter", () => {
  it("gives a confirmable publish its Message ID and token as resend identity, a possible resend while the device is new to the process", async () => {
    start();
    const opened = Date.now();
    await request("0.02", "/mqtt/up", { payload: "1", messageId: 100, token: "tok" });
    await request("0.02", "/mqtt/up", { payload: "2", confirmable: false });
    const clock = vi.spyOn(Date, "now").mockReturnValue(opened + EXCHANGE_MS + 1_000);
    try {
      await request("0.02", "/mqtt/up", { payload: "3", messageId: 101, token: "tok2" });
    } finally {
      clock.mockRestore();
    }
    await vi.waitFor(() => expect(registry.uplinks).toHaveLength(3));
    expect(registry.uplinks.map((u) => u.resend)).toEqual([
      { id: `coap:100:${Buffer.from("tok").toString("hex")}`, maybe: true },
      undefined,
      { id: `coap:101:${Buffer.from("tok2").toString("hex")}`, maybe: false },
    ]);
  });

  it("answers a confirmable publish 2.04 on its ACK only after the registry acked the uplink", async () => {
    start();
    registry.autoAck = false;
    const answer = request("0.02", "/mqtt/telemetry/temp", { payload: "21.5" });
    await vi.waitFor(() => expect(registry.pendingUplinks).toBe(1));
    await nextTurn(); // an answer that did not wait for the registry's ack would be out by now
    expect(client.inbox).toEqual([]);
    registry.ackAll();
    const a = await answer;
    expect(a).toMatchObject({ code: "2.04", ack: true });
    expect(registry.uplinks[0]).toMatchObject({
      topic: "telemetry/temp",
      deviceIntId: 1,
      clientIp: "127.0.0.1",
      qos: 1,
    });
    expect(registry.events.map((e) => e.type)).toEqual(["opened"]);
  });

  it("publishes once when the device retransmits the same confirmable request, answering both", async () => {
    start();
    const datagram = generate({
      code: "0.03",
      messageId: 999,
      token: Buffer.from("rt"),
      confirmable: true,
      payload: Buffer.from("x"),
      options: [
        { name: "Uri-Path", value: Buffer.from("mqtt") },
        { name: "Uri-Path", value: Buffer.from("t") },
        ...["u=u1", "p=t1"].map((q) => ({ name: "Uri-Query", value: Buffer.from(q) })),
      ],
    });
    send(datagram);
    await next((p) => p.messageId === 999);
    send(datagram);
    await next((p) => p.messageId === 999);
    expect(registry.uplinks).toHaveLength(1);
  });

  it("answers 4.01 to wrong or missing credentials, 4.03 to a denied topic, 4.00 to a bad one, 4.04 and 4.05 elsewhere", async () => {
    start();
    expect((await request("0.02", "/mqtt/x", { query: ["u=u1", "p=nope"] })).code).toBe("4.01");
    expect((await request("0.02", "/mqtt/x", { query: [] })).code).toBe("4.01");
    expect((await request("0.02", "/mqtt/secret/x")).code).toBe("4.03");
    expect((await request("0.02", "/mqtt/a/+")).code).toBe("4.00");
    expect((await request("0.02", "/other/x")).code).toBe("4.04");
    expect((await request("0.04", "/mqtt/x")).code).toBe("4.05");
    expect(registry.uplinks).toEqual([]);
  });

  it("answers 4.29 to a publish over the tenant's uplink rate and stores only those within it", async () => {
    start();
    registry.setTenantUplinkRate("tenant-1", 2);
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await request("0.02", "/mqtt/t", { payload: `${i}` }));
    expect(replies.map((r) => r.code)).toEqual(["2.04", "2.04", "4.29"]);
    // Max-Age 1: without it RFC 8516's client would wait its default of 60 s.
    expect(replies.map((r) => uintOption(r, "Max-Age"))).toEqual([undefined, undefined, 1]);
    expect(registry.uplinks).toHaveLength(2);
  });

  it("answers 5.03 with Max-Age 1 to a publish finding the uplink buffer full, and stores it when tried again with room", async () => {
    start(60, 262_144, 1);
    registry.autoAck = false;
    // Another device's uplink holds the buffer's one place until the registry acks it.
    const held = registry.publishOther();
    const full = await request("0.02", "/mqtt/t", { payload: "1" });
    expect(full.code).toBe("5.03");
    expect(uintOption(full, "Max-Age")).toBe(1);
    expect(full.payload.toString()).toBe("not stored; try again");
    registry.ackAll();
    await held;
    registry.autoAck = true;
    expect((await request("0.02", "/mqtt/t", { payload: "2" })).code).toBe("2.04");
    expect(registry.uplinks.map((u) => Buffer.from(u.payload).toString())).toEqual(["\u0001", "2"]);
  });

  it("answers 4.00 to a datagram with a readable header and bad options, ignores garbage, and keeps serving", async () => {
    start();
    send(Buffer.from([0x41, 0x02, 0x12, 0x34, 0x07, 0xf1, 0x00])); // option delta 15 is reserved
    expect(await next((p) => p.messageId === 0x1234)).toMatchObject({ code: "4.00", ack: true });
    send(Buffer.from("definitely not coap"));
    send(Buffer.alloc(0));
    expect((await request("0.02", "/mqtt/ok", { payload: "1" })).code).toBe("2.04");
  });

  it("sends a command to an observer as a confirmable notification, DELIVERED once the device ACKs it", async () => {
    start();
    const registered = await request("0.01", "/mqtt/inbox", { observe: 0, token: "obs" });
    expect(registered.code).toBe("2.05");
    const outcome = registry.pushDownlink({ id: 5, deviceIntId: 1, payload: new Uint8Array(Buffer.from("switch-on")) });
    const n = await next((p) => p.token.toString() === "obs" && p.confirmable);
    expect(n.payload.toString()).toBe("switch-on");
    send(generate({ code: "0.00", messageId: n.messageId, ack: true, token: Buffer.alloc(0) }));
    expect(await outcome).toEqual({ status: "DELIVERED" });
  });

  it("serves a device's requests with and without c= in one session: one online, commands to its observer alone", async () => {
    start();
    const bare = ["u=u1", "p=t1"];
    expect((await request("0.01", "/mqtt/inbox", { observe: 0, token: "obs", query: bare })).code).toBe("2.05");
    expect((await request("0.02", "/mqtt/up", { payload: "1" })).code).toBe("2.04"); // with c=dev-1
    expect((await request("0.01", "/mqtt/inbox")).payload.length).toBe(0); // a plain GET with c=: nothing waits
    expect(registry.events.map((e) => e.type)).toEqual(["opened"]);
    expect(adapter.leases.size).toBe(1);
    const outcome = registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array(Buffer.from("switch-on")) });
    const n = await next((p) => p.token.toString() === "obs" && p.confirmable);
    expect(n.payload.toString()).toBe("switch-on");
    client.answer(n.messageId);
    expect(await outcome).toEqual({ status: "DELIVERED" });
    const fetched = await request("0.01", "/mqtt/inbox", { query: bare });
    expect(fetched).toMatchObject({ code: "2.05" });
    expect(fetched.payload.length).toBe(0); // the command is not handed out twice
    expect(registry.events.map((e) => e.type)).toEqual(["opened"]);
  });

  it("fails a notification the device does not acknowledge, and ends that observation", async () => {
    start();
    await request("0.01", "/mqtt/inbox", { observe: 0, token: "deaf" });
    expect(await registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array([1]) })).toMatchObject({
      status: "FAILED",
    });
    expect(
      await registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array([2]), expiresAtMs: Date.now() + 100 }),
    ).toMatchObject({ status: "FAILED" });
  });

  it("asks an idle observer every keepAlive whether it is still there, and ends the session when it is gone", async () => {
    start(1);
    await request("0.01", "/mqtt/inbox", { observe: 0, token: "alive" });
    const probe = await next((p) => p.token.toString() === "alive" && p.confirmable, 3000);
    expect(probe.payload.length).toBe(0);
    send(generate({ code: "0.00", messageId: probe.messageId, ack: true, token: Buffer.alloc(0) }));
    expect(registry.events.map((e) => e.type)).toEqual(["opened"]);
    // Now the observer goes silent: the next probe is not ACKed, the observation ends, then the lease lapses.
    await expect.poll(() => registry.events.map((e) => e.type), { timeout: 6000 }).toEqual(["opened", "closed"]);
  });

  it("refuses to observe a topic its policies deny with 4.03", async () => {
    start();
    expect((await request("0.01", "/mqtt/secret/x", { observe: 0 })).code).toBe("4.03");
  });

  it("hands a waiting command to a plain GET", async () => {
    start();
    expect((await request("0.02", "/mqtt/hello", { payload: "1" })).code).toBe("2.04");
    const outcome = registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array(Buffer.from("later")) });
    const got = await request("0.01", "/mqtt");
    expect(got).toMatchObject({ code: "2.05" });
    expect(got.payload.toString()).toBe("later");
    expect(await outcome).toEqual({ status: "DELIVERED" });
  });

  it("publishes a body sent in Block1 blocks once, whole, answering 2.31 to the blocks before the last", async () => {
    start();
    const json = JSON.stringify({ readings: Array.from({ length: 180 }, (_, i) => ({ i, v: i * 1.5 })) });
    expect(json.length).toBeGreaterThan(3000);
    const codes = [];
    for (let num = 0; num * 256 < json.length; num++) {
      const more = (num + 1) * 256 < json.length;
      const payload = json.slice(num * 256, (num + 1) * 256);
      const block1 = { num, more, szx: 4 };
      codes.push((await request("0.02", "/mqtt/telemetry", { payload, block1, size1: json.length })).code);
    }
    expect(codes.at(-1)).toBe("2.04");
    expect(new Set(codes.slice(0, -1))).toEqual(new Set(["2.31"]));
    expect(registry.uplinks).toHaveLength(1);
    expect(Buffer.from(registry.uplinks[0]!.payload).toString()).toBe(json);
  });

  it("answers 4.13 with Size1 = IOT_MAX_MESSAGE_SIZE to uploads over it, whole or in blocks, and publishes nothing", async () => {
    start(60, 1000);
    const whole = await request("0.02", "/mqtt/t", { payload: "x".repeat(1001) });
    expect([whole.code, uintOption(whole, "Size1")]).toEqual(["4.13", 1000]);
    const announced = await request("0.02", "/mqtt/t", {
      payload: "x".repeat(256),
      block1: { num: 0, more: true, szx: 4 },
      size1: 5000,
    });
    expect([announced.code, uintOption(announced, "Size1")]).toEqual(["4.13", 1000]);
    const codes = [];
    for (let num = 0; num < 4; num++) {
      const block1 = { num, more: true, szx: 4 };
      codes.push((await request("0.02", "/mqtt/t", { payload: "y".repeat(256), block1 })).code);
    }
    expect(codes).toEqual(["2.31", "2.31", "2.31", "4.13"]);
    expect(registry.uplinks).toEqual([]);
  });

  it("sends a command larger than a block to an observer as its first block, the device GETs the rest", async () => {
    start();
    await request("0.01", "/mqtt/inbox", { observe: 0, token: "big", block2: { num: 0, more: false, szx: 4 } });
    const command = "c".repeat(600) + "d".repeat(100);
    const outcome = registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array(Buffer.from(command)) });
    const n = await next((p) => p.token.toString() === "big" && p.confirmable);
    expect(blockOption(n, "Block2")).toEqual({ num: 0, more: true, szx: 4 });
    client.answer(n.messageId);
    expect(await outcome).toEqual({ status: "DELIVERED" });
    const waiting = registry.pushDownlink({ deviceIntId: 1, topic: "other", payload: new Uint8Array([1]) });
    const parts = [n.payload];
    for (let num = 1; num < 3; num++) {
      parts.push((await request("0.01", "/mqtt/inbox", { block2: { num, more: false, szx: 4 } })).payload);
    }
    expect(Buffer.concat(parts).toString()).toBe(command);
    // Fetching the rest took no other command.
    const pending = await Promise.race([waiting, new Promise((r) => setTimeout(() => r("pending"), 50))]);
    expect(pending).toBe("pending");
  });

  it("hands a large waiting command to a plain GET block-wise, taking it once", async () => {
    start();
    expect((await request("0.02", "/mqtt/hello", { payload: "1" })).code).toBe("2.04");
    const command = Buffer.alloc(2500, 7);
    const first = registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array(command) });
    const second = registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array(Buffer.from("next")) });
    const got = await request("0.01", "/mqtt");
    expect(blockOption(got, "Block2")).toEqual({ num: 0, more: true, szx: 6 });
    expect(await first).toEqual({ status: "DELIVERED" });
    const parts = [got.payload];
    for (let num = 1; num < 3; num++) {
      parts.push((await request("0.01", "/mqtt", { block2: { num, more: false, szx: 6 } })).payload);
    }
    expect(Buffer.concat(parts)).toEqual(command);
    expect((await request("0.01", "/mqtt")).payload.toString()).toBe("next");
    expect(await second).toEqual({ status: "DELIVERED" });
  });
});
