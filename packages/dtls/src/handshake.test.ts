import { describe, expect, test } from "vitest";
import { decodeFragments, encodeHandshake, fragmentHandshake, HandshakeType, Reassembler } from "./handshake.js";

const message = { msgType: HandshakeType.clientHello, messageSeq: 3, body: Buffer.from("0123456789abcdefghij") };

describe("handshake fragments", () => {
  test("an unfragmented message has the 12-byte header with offset 0 and its whole length", () => {
    const wire = encodeHandshake(message);
    expect(wire.subarray(0, 12).toString("hex")).toBe("01000014" + "0003" + "000000" + "000014");
    const frags = decodeFragments(wire);
    expect(frags.ok && frags.value).toEqual([
      { msgType: 1, length: 20, messageSeq: 3, fragmentOffset: 0, body: message.body },
    ]);
  });

  test("fragments out of order, overlapping and repeated reassemble into the message", () => {
    const wires = fragmentHandshake(message, 7);
    expect(wires).toHaveLength(3);
    const decoded = wires.map((w) => {
      const d = decodeFragments(w);
      if (!d.ok) throw new Error(d.reason);
      return d.value[0]!;
    });
    const overlap = { ...decoded[0]!, fragmentOffset: 4, body: message.body.subarray(4, 14) };
    const r = new Reassembler();
    expect(r.add(decoded[2]!)).toEqual({ ok: true, value: undefined });
    expect(r.add(overlap)).toEqual({ ok: true, value: undefined });
    expect(r.add(decoded[2]!)).toEqual({ ok: true, value: undefined });
    expect(r.add(decoded[0]!)).toEqual({ ok: true, value: message });
  });

  test("several fragments in one record body are all returned", () => {
    const both = Buffer.concat(fragmentHandshake(message, 10));
    const frags = decodeFragments(both);
    expect(frags.ok && frags.value.map((f) => f.fragmentOffset)).toEqual([0, 10]);
  });

  test("refuses a fragment past the message's end, a cut header and disagreeing fragments", () => {
    const wire = fragmentHandshake(message, 7)[2]!;
    const past = Buffer.from(wire);
    past.writeUIntBE(18, 6, 3);
    expect(decodeFragments(past)).toEqual({ ok: false, reason: "handshake: fragment past the message's end" });
    expect(decodeFragments(wire.subarray(0, 11)).ok).toBe(false);
    const r = new Reassembler();
    r.add({ msgType: 1, length: 20, messageSeq: 3, fragmentOffset: 0, body: Buffer.alloc(5) });
    expect(r.add({ msgType: 1, length: 21, messageSeq: 3, fragmentOffset: 5, body: Buffer.alloc(5) }).ok).toBe(false);
  });
});
