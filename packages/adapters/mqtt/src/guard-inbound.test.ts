import { PassThrough } from "node:stream";
import mqttPacket, { type Packet } from "mqtt-packet";
import { describe, expect, it } from "vitest";
import type { InboundProblem } from "./codec/inbound-checker.js";
import type { OversizedPacket } from "./codec/packet-size-gate.js";
import type { Pubrec } from "./codec/pubrec-scanner.js";
import { guardInbound } from "./guard-inbound.js";

const v5 = (p: object) => mqttPacket.generate(p as Packet, { protocolVersion: 5 });
const connect = v5({
  cmd: "connect",
  protocolId: "MQTT",
  protocolVersion: 5,
  clientId: "c",
  clean: true,
  keepalive: 30,
});

function guarded(limit: number) {
  const stream = new PassThrough();
  const seen = { problems: [] as InboundProblem[], oversized: [] as OversizedPacket[], pubrecs: [] as Pubrec[] };
  guardInbound(stream, limit, {
    problem: (p) => seen.problems.push(p),
    oversized: (p) => seen.oversized.push(p),
    pubrec: (p) => seen.pubrecs.push(p),
  });
  return { stream, seen };
}

describe("guardInbound", () => {
  it("hands packets within the limit to the reader unchanged", () => {
    const { stream, seen } = guarded(4);
    const bytes = Buffer.from([0x30, 0x04, 0x00, 0x01, 0x74, 0x78, 0xc0, 0x00]);
    stream.write(bytes);
    expect(stream.read()).toEqual(bytes);
    expect(seen).toEqual({ problems: [], oversized: [], pubrecs: [] });
  });

  it("withholds the read holding an oversized header, reports it once and reads nothing more", () => {
    const { stream, seen } = guarded(4);
    stream.write(Buffer.from([0xc0, 0x00]));
    expect(stream.read()).toEqual(Buffer.from([0xc0, 0x00]));
    stream.write(Buffer.from([0x30, 0x80, 0x01, 0x00]));
    expect(stream.read()).toBeNull();
    expect(seen.oversized).toEqual([{ type: "PUBLISH", remainingLength: 128 }]);
    stream.write(Buffer.from([0xc0, 0x00]));
    expect(stream.read()).toBeNull();
  });

  it("reports the PUBRECs the reader is handed, and none after the device's DISCONNECT", () => {
    const { stream, seen } = guarded(1000);
    const before = Buffer.concat([
      connect,
      v5({ cmd: "pubrec", messageId: 7, reasonCode: 0x10 }),
      v5({ cmd: "disconnect", reasonCode: 0 }),
    ]);
    stream.write(Buffer.concat([before, v5({ cmd: "pubrec", messageId: 8 })]));
    expect(stream.read()).toEqual(before);
    expect(seen.pubrecs).toEqual([{ messageId: 7, reasonCode: 0x10 }]);
    expect(seen.problems).toEqual([]);
  });

  it("stops before a refused MQTT 5.0 PUBLISH and says why", () => {
    const { stream, seen } = guarded(1000);
    const wildcard = v5({ cmd: "publish", topic: "a/+", payload: Buffer.from("x"), qos: 0 });
    stream.write(Buffer.concat([connect, wildcard]));
    expect(stream.read()).toEqual(connect);
    expect(seen.problems).toEqual([expect.objectContaining({ code: 0x90 })]);
  });

  it("frees a Receive Maximum slot when the broker writes the PUBACK", () => {
    const { stream, seen } = guarded(1000);
    const publish = (messageId: number) =>
      v5({ cmd: "publish", topic: "t", payload: Buffer.from("x"), qos: 1, messageId });
    stream.write(connect);
    stream.read();
    // 256 unanswered (the advertised Receive Maximum), each then answered: the 257th and more pass.
    for (let id = 1; id <= 300; id++) {
      stream.write(publish(id));
      expect(stream.read()).not.toBeNull();
      stream.write(v5({ cmd: "puback", messageId: id, reasonCode: 0 }));
      stream.read(); // the PassThrough echoes the adapter's write back; reading it keeps the buffer empty
    }
    expect(seen.problems).toEqual([]);
  });
});
