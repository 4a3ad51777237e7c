import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { OversizedPacket } from "./codec/packet-size-gate.js";
import { guardPacketSizes } from "./guard-packet-sizes.js";

function guarded(limit: number) {
  const stream = new PassThrough();
  const refused: OversizedPacket[] = [];
  guardPacketSizes(stream, limit, (p) => refused.push(p));
  return { stream, refused };
}

describe("guardPacketSizes", () => {
  it("hands packets within the limit to the reader unchanged", () => {
    const { stream, refused } = guarded(4);
    const bytes = Buffer.from([0x30, 0x04, 0x00, 0x01, 0x74, 0x78, 0xc0, 0x00]);
    stream.write(bytes);
    expect(stream.read()).toEqual(bytes);
    expect(refused).toEqual([]);
    expect(stream.destroyed).toBe(false);
  });

  it("withholds the read holding an oversized header, reports it and destroys the stream", () => {
    const { stream, refused } = guarded(4);
    stream.write(Buffer.from([0xc0, 0x00]));
    expect(stream.read()).toEqual(Buffer.from([0xc0, 0x00]));
    stream.write(Buffer.from([0x30, 0x80, 0x01, 0x00]));
    expect(stream.read()).toBeNull();
    expect(refused).toEqual([{ type: "PUBLISH", remainingLength: 128 }]);
    expect(stream.destroyed).toBe(true);
    expect(stream.read()).toBeNull();
  });
});
