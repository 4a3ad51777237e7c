import mqttPacket, { type Packet } from "mqtt-packet";
import { describe, expect, it } from "vitest";
import { UnsubscribeRewriter } from "./unsubscribe-rewriter.js";

const mount = (f: string) => `d/7/${f}`;

const bytes = (packet: Packet, protocolVersion = 4) => mqttPacket.generate(packet, { protocolVersion });
const connect = (protocolVersion = 4) =>
  bytes({ cmd: "connect", protocolId: "MQTT", protocolVersion, clientId: "dev", clean: true, keepalive: 30 } as Packet);
const unsubscribe = (filters: string[], protocolVersion = 4, properties?: object) =>
  bytes({ cmd: "unsubscribe", messageId: 9, unsubscriptions: filters, properties }, protocolVersion);
const publishOf = (protocolVersion = 4) =>
  bytes({ cmd: "publish", topic: "t", payload: Buffer.from("x"), qos: 0, dup: false, retain: false }, protocolVersion);
const publish = publishOf();

/** Every packet mqtt-packet reads from `data`. */
function decode(data: Buffer, protocolVersion = 4): Packet[] {
  const parser = mqttPacket.parser({ protocolVersion });
  const packets: Packet[] = [];
  parser.on("packet", (p) => packets.push(p));
  parser.on("error", (e) => {
    throw e;
  });
  parser.parse(data);
  return packets;
}

/** Feeds `data` split into chunks of `size` bytes; answers everything handed on, concatenated. */
function feed(rewriter: UnsubscribeRewriter, data: Buffer, size: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += size) out.push(rewriter.push(data.subarray(i, i + size)));
  return Buffer.concat(out);
}

describe("UnsubscribeRewriter", () => {
  it("holds every byte after CONNECT until released, then mounts the UNSUBSCRIBE filters and passes the rest as it came", () => {
    const r = new UnsubscribeRewriter();
    const after = Buffer.concat([publish, unsubscribe(["inbox", "cfg/#"]), publish]);
    expect(r.push(Buffer.concat([connect(), after]))).toEqual(connect());
    expect(r.holding).toBe(true);
    expect(r.push(publish).length).toBe(0);
    r.release(mount, 4);
    expect(r.holding).toBe(false);
    const out = decode(r.push(new Uint8Array(0)));
    expect(out.map((p) => p.cmd)).toEqual(["publish", "unsubscribe", "publish", "publish"]);
    expect(out[1]).toMatchObject({ messageId: 9, unsubscriptions: ["d/7/inbox", "d/7/cfg/#"] });
  });

  it("rewrites an UNSUBSCRIBE split at any byte, and keeps an MQTT 5.0 one's properties", () => {
    const stream = Buffer.concat([
      publishOf(5),
      unsubscribe(["a/b"], 5, { userProperties: { why: "test" } }),
      publishOf(5),
      unsubscribe(["c"], 5),
    ]);
    for (const size of [1, 2, 3, 7, stream.length]) {
      const r = new UnsubscribeRewriter();
      r.push(connect(5));
      r.release(mount, 5);
      const out = decode(feed(r, stream, size), 5);
      expect(out.map((p) => p.cmd)).toEqual(["publish", "unsubscribe", "publish", "unsubscribe"]);
      expect(out[1]).toMatchObject({ unsubscriptions: ["d/7/a/b"], properties: { userProperties: { why: "test" } } });
      expect(out[3]).toMatchObject({ unsubscriptions: ["d/7/c"] });
    }
  });

  it("passes a packet it cannot read, and everything after a malformed length, unchanged (the broker refuses them)", () => {
    const r = new UnsubscribeRewriter();
    r.push(connect());
    r.release(mount, 4);
    const garbage = Buffer.from([0xa2, 0x03, 0x00, 0x09, 0xff]);
    expect(r.push(garbage)).toEqual(garbage);
    const malformed = Buffer.from([0xa2, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect(r.push(malformed)).toEqual(malformed);
    const later = unsubscribe(["x"]);
    expect(r.push(later)).toEqual(later);
  });
});
