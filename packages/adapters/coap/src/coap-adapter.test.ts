import { createSocket, type Socket } from "node:dgram";
import { generate, parse, type ParsedPacket } from "coap-packet";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { FakeRegistryClient } from "@iot/adapter-core";
import { createCoapAdapter, type CoapAdapter } from "./coap-adapter.js";
import { listenUdp, type UdpListener } from "./transport/udp.js";

const device = {
  deviceIntId: 1,
  deviceId: "dev-1",
  username: "u1",
  token: "t1",
  policies: [{ id: 1, topic: "secret/#", access: 3 as const, allow: false }],
};

let registry: FakeRegistryClient;
let adapter: CoapAdapter;
let udp: UdpListener;
let client: Socket;
let inbox: ParsedPacket[];
let mid = 1;

async function start(keepAliveSeconds = 60) {
  registry = new FakeRegistryClient({ devices: [device] });
  registry.start();
  adapter = createCoapAdapter({
    registry,
    logger: pino({ level: "silent" }),
    policyDefault: "allow",
    keepAliveSeconds,
    ackTimeoutMs: 50,
    maxRetransmit: 1,
  });
  udp = await listenUdp(adapter, { port: 0, host: "127.0.0.1", onError: () => undefined });
  client = createSocket("udp4");
  inbox = [];
  client.on("message", (m) => inbox.push(parse(m)));
  await new Promise<void>((r) => client.bind(0, "127.0.0.1", () => r()));
}

afterEach(async () => {
  client.close();
  adapter.close();
  await udp.close();
});

const send = (datagram: Buffer) => client.send(datagram, udp.port, "127.0.0.1");

/** Sends a request and resolves with the answer carrying its token. */
function request(
  code: string,
  path: string,
  opts: { query?: string[]; payload?: string; observe?: number; confirmable?: boolean; token?: string } = {},
): Promise<ParsedPacket> {
  const token = Buffer.from(opts.token ?? `t${mid}`);
  const options = [
    ...(opts.observe !== undefined
      ? [{ name: "Observe", value: opts.observe === 0 ? Buffer.alloc(0) : Buffer.from([opts.observe]) }]
      : []),
    ...path
      .split("/")
      .filter(Boolean)
      .map((p) => ({ name: "Uri-Path", value: Buffer.from(p) })),
    ...(opts.query ?? ["c=dev-1", "u=u1", "p=t1"]).map((q) => ({ name: "Uri-Query", value: Buffer.from(q) })),
  ];
  send(
    generate({
      code,
      messageId: mid++,
      token,
      confirmable: opts.confirmable ?? true,
      options,
      payload: Buffer.from(opts.payload ?? ""),
    }),
  );
  return next((p) => p.token.equals(token) && !p.code.startsWith("0."));
}

async function next(match: (p: ParsedPacket) => boolean, timeoutMs = 2000): Promise<ParsedPacket> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const i = inbox.findIndex(match);
    if (i >= 0) return inbox.splice(i, 1)[0]!;
    if (Date.now() > until) throw new Error("no answer");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("CoAP adapter", () => {
  it("answers a confirmable publish 2.04 on its ACK only after the registry acked the uplink", async () => {
    await start();
    registry.autoAck = false;
    const answer = request("0.02", "/mqtt/telemetry/temp", { payload: "21.5" });
    await new Promise((r) => setTimeout(r, 50));
    expect(inbox).toEqual([]);
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
    await start();
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
    await start();
    expect((await request("0.02", "/mqtt/x", { query: ["u=u1", "p=nope"] })).code).toBe("4.01");
    expect((await request("0.02", "/mqtt/x", { query: [] })).code).toBe("4.01");
    expect((await request("0.02", "/mqtt/secret/x")).code).toBe("4.03");
    expect((await request("0.02", "/mqtt/a/+")).code).toBe("4.00");
    expect((await request("0.02", "/other/x")).code).toBe("4.04");
    expect((await request("0.04", "/mqtt/x")).code).toBe("4.05");
    expect(registry.uplinks).toEqual([]);
  });

  it("answers 4.00 to a datagram with a readable header and bad options, ignores garbage, and keeps serving", async () => {
    await start();
    send(Buffer.from([0x41, 0x02, 0x12, 0x34, 0x07, 0xf1, 0x00])); // option delta 15 is reserved
    expect(await next((p) => p.messageId === 0x1234)).toMatchObject({ code: "4.00", ack: true });
    send(Buffer.from("definitely not coap"));
    send(Buffer.alloc(0));
    expect((await request("0.02", "/mqtt/ok", { payload: "1" })).code).toBe("2.04");
  });

  it("sends a command to an observer as a confirmable notification, DELIVERED once the device ACKs it", async () => {
    await start();
    const registered = await request("0.01", "/mqtt/inbox", { observe: 0, token: "obs" });
    expect(registered.code).toBe("2.05");
    const outcome = registry.pushDownlink({ id: 5, deviceIntId: 1, payload: new Uint8Array(Buffer.from("switch-on")) });
    const n = await next((p) => p.token.toString() === "obs" && p.confirmable);
    expect(n.payload.toString()).toBe("switch-on");
    send(generate({ code: "0.00", messageId: n.messageId, ack: true, token: Buffer.alloc(0) }));
    expect(await outcome).toEqual({ status: "DELIVERED" });
  });

  it("fails a notification the device does not acknowledge, and ends that observation", async () => {
    await start();
    await request("0.01", "/mqtt/inbox", { observe: 0, token: "deaf" });
    expect(await registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array([1]) })).toMatchObject({
      status: "FAILED",
    });
    expect(
      await registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array([2]), expiresAtMs: Date.now() + 100 }),
    ).toMatchObject({ status: "FAILED" });
  });

  it("asks an idle observer every keepAlive whether it is still there, and ends the session when it is gone", async () => {
    await start(1);
    await request("0.01", "/mqtt/inbox", { observe: 0, token: "alive" });
    const probe = await next((p) => p.token.toString() === "alive" && p.confirmable, 3000);
    expect(probe.payload.length).toBe(0);
    send(generate({ code: "0.00", messageId: probe.messageId, ack: true, token: Buffer.alloc(0) }));
    expect(registry.events.map((e) => e.type)).toEqual(["opened"]);
    // Now the observer goes silent: the next probe is not ACKed, the observation ends, then the lease lapses.
    await expect.poll(() => registry.events.map((e) => e.type), { timeout: 6000 }).toEqual(["opened", "closed"]);
  });

  it("refuses to observe a topic its policies deny with 4.03", async () => {
    await start();
    expect((await request("0.01", "/mqtt/secret/x", { observe: 0 })).code).toBe("4.03");
  });

  it("hands a waiting command to a plain GET", async () => {
    await start();
    expect((await request("0.02", "/mqtt/hello", { payload: "1" })).code).toBe("2.04");
    const outcome = registry.pushDownlink({ deviceIntId: 1, payload: new Uint8Array(Buffer.from("later")) });
    const got = await request("0.01", "/mqtt");
    expect(got).toMatchObject({ code: "2.05" });
    expect(got.payload.toString()).toBe("later");
    expect(await outcome).toEqual({ status: "DELIVERED" });
  });
});
