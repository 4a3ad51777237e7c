import { describe, expect, it } from "vitest";
import { PacketFramer } from "./packet-framer.js";
import { PacketSizeGate, type OversizedPacket } from "./packet-size-gate.js";

/** Remaining-length encodings from MQTT 3.1.1 §2.2.3 (Table 2.4's boundaries). */
const SPEC_LENGTHS: [number, number[]][] = [
  [0, [0x00]],
  [127, [0x7f]],
  [128, [0x80, 0x01]],
  [16_383, [0xff, 0x7f]],
  [16_384, [0x80, 0x80, 0x01]],
  [2_097_151, [0xff, 0xff, 0x7f]],
  [2_097_152, [0x80, 0x80, 0x80, 0x01]],
  [268_435_455, [0xff, 0xff, 0xff, 0x7f]],
];

/** A packet: type byte, remaining length bytes, then a body of `body` bytes that look like packet headers. */
function packet(typeByte: number, lengthBytes: number[], body: number): Buffer {
  return Buffer.concat([Buffer.from([typeByte, ...lengthBytes]), Buffer.alloc(body, 0x3f)]);
}

/** Feeds `chunks` in order; answers the verdict and the stream offset of the byte that ended the chunk giving it. */
function feed(gate: PacketSizeGate, chunks: Buffer[]): { verdict?: OversizedPacket; at?: number } {
  const framer = new PacketFramer();
  let offset = 0;
  for (const c of chunks) {
    offset += c.length;
    framer.feed(c, gate);
    if (gate.oversized) return { verdict: gate.oversized, at: offset };
  }
  return {};
}

/** Every way of cutting `stream` in two, and one byte at a time. */
function splits(stream: Buffer): Buffer[][] {
  const out: Buffer[][] = [];
  for (let cut = 0; cut <= stream.length; cut++) out.push([stream.subarray(0, cut), stream.subarray(cut)]);
  out.push([...stream].map((b) => Buffer.from([b])));
  return out;
}

describe("PacketSizeGate", () => {
  const limit = 300;
  // CONNECT, a PUBLISH exactly at the limit, PINGREQ (no body), then a PUBLISH announcing limit + 1.
  const allowed = Buffer.concat([packet(0x10, [0x0c], 12), packet(0x32, [0xac, 0x02], limit), packet(0xc0, [0], 0)]);
  const oversized = packet(0x30, [0xad, 0x02], 40);

  it("lets packets at the limit through, following their boundaries, however the stream is split", () => {
    for (const chunks of splits(allowed)) expect(feed(new PacketSizeGate(limit), chunks)).toEqual({});
  });

  it("names a PUBLISH announced over the limit from its fixed header, before its body, at every split", () => {
    const stream = Buffer.concat([allowed, oversized]);
    const headerEnd = allowed.length + 3;
    for (const chunks of splits(stream)) {
      const { verdict, at } = feed(new PacketSizeGate(limit), chunks);
      expect(verdict).toEqual({ type: "PUBLISH", remainingLength: limit + 1 });
      // Byte by byte, the verdict comes with the last length byte; otherwise with the chunk holding it.
      if (chunks.length > 2) expect(at).toBe(headerEnd);
      else expect(at).toBe(chunks[0]!.length >= headerEnd ? chunks[0]!.length : stream.length);
    }
  });

  it.each(SPEC_LENGTHS)("decodes the remaining length %i exactly (limit at it passes, one below refuses)", (n, enc) => {
    const header = Buffer.from([0x82, ...enc]);
    for (const chunks of splits(header)) {
      expect(feed(new PacketSizeGate(n), chunks)).toEqual({});
      if (n > 0)
        expect(feed(new PacketSizeGate(n - 1), chunks).verdict).toEqual({ type: "SUBSCRIBE", remainingLength: n });
    }
  });

  it("stops its framer at the first packet over the limit, so nothing after it is read", () => {
    const gate = new PacketSizeGate(10);
    const framer = new PacketFramer();
    const stream = Buffer.concat([packet(0x10, [0x0b], 0), packet(0x30, [0x7f], 127)]);
    expect(framer.feed(stream, gate)).toBe(2);
    expect(gate.oversized).toEqual({ type: "CONNECT", remainingLength: 11 });
    expect(framer.stopped).toBe(true);
  });

  it("gives no verdict at a malformed length (a fifth varint byte), which the MQTT parser refuses", () => {
    const gate = new PacketSizeGate(10);
    const framer = new PacketFramer();
    framer.feed(Buffer.from([0x10, 0xff, 0xff, 0xff, 0xff, 0x7f]), gate);
    framer.feed(packet(0x30, [0x7f], 127), gate);
    expect(gate.oversized).toBeUndefined();
  });

  it("refuses limits the remaining length cannot express", () => {
    expect(() => new PacketSizeGate(-1)).toThrow(RangeError);
    expect(() => new PacketSizeGate(268_435_456)).toThrow(RangeError);
  });
});
