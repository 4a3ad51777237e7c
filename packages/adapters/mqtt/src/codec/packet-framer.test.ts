import { describe, expect, it } from "vitest";
import { PacketFramer, type FrameReader } from "./packet-framer.js";

/** Feeds `bytes` split into chunks of `size` and records each packet's type, remaining length and body. */
function frames(bytes: number[], size: number) {
  const framer = new PacketFramer();
  const seen: Array<{ type: number; length: number; body: number[] }> = [];
  const reader: FrameReader = {
    header: (type, length) => void seen.push({ type, length, body: [] }),
    body: (_type, chunk, from, to) => seen.at(-1)!.body.push(...chunk.subarray(from, to)),
  };
  for (let i = 0; i < bytes.length; i += size) framer.feed(Uint8Array.from(bytes.slice(i, i + size)), reader);
  return { seen, stopped: framer.stopped };
}

describe("PacketFramer", () => {
  // PINGREQ (no body), PUBACK id 7, a PUBLISH of 130 body bytes (two length bytes: 0x82 0x01).
  const stream = [0xc0, 0, 0x40, 2, 0, 7, 0x30, 0x82, 0x01, ...Array.from({ length: 130 }, (_, i) => i & 0xff)];

  it("finds every packet's type, remaining length and body, whatever the chunks' boundaries", () => {
    for (const size of [1, 2, 3, 7, stream.length]) {
      const { seen, stopped } = frames(stream, size);
      expect(seen.map(({ type, length }) => [type, length])).toEqual([
        [12, 0],
        [4, 2],
        [3, 130],
      ]);
      expect(seen[1]!.body).toEqual([0, 7]);
      expect(seen[2]!.body).toHaveLength(130);
      expect(stopped).toBe(false);
    }
  });

  it("stops for good at a fifth length byte, and when a reader's header says so", () => {
    expect(frames([0x30, 0xff, 0xff, 0xff, 0xff, 0x01, 0xc0, 0], 3)).toEqual({ seen: [], stopped: true });
    const framer = new PacketFramer();
    const types: number[] = [];
    framer.feed(Uint8Array.from(stream), { header: (type) => (types.push(type), type !== 4) });
    expect(types).toEqual([12, 4]);
    expect(framer.stopped).toBe(true);
  });

  it("ends a feed where a reader's end says so, and answers that position", () => {
    const framer = new PacketFramer();
    expect(framer.feed(Uint8Array.from(stream), { end: (type) => type !== 4 })).toBe(6);
    expect(framer.feed(Uint8Array.from(stream), {}, 6)).toBe(stream.length);
  });
});
