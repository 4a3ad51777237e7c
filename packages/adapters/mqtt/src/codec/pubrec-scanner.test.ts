import mqttPacket from "mqtt-packet";
import { describe, expect, it } from "vitest";
import { PacketFramer } from "./packet-framer.js";
import { PubrecScanner } from "./pubrec-scanner.js";

/** Feeds `chunks` in order through one framer; answers the PUBRECs found. */
function scan(chunks: Uint8Array[]) {
  const framer = new PacketFramer();
  const scanner = new PubrecScanner();
  return chunks.flatMap((chunk) => {
    framer.feed(chunk, scanner);
    return scanner.take();
  });
}

const v4 = (p: object) => mqttPacket.generate(p as mqttPacket.Packet, { protocolVersion: 4 });
const v5 = (p: object) => mqttPacket.generate(p as mqttPacket.Packet, { protocolVersion: 5 });

describe("PubrecScanner", () => {
  it("finds the PUBRECs among other packets, with their packet identifiers", () => {
    const stream = Buffer.concat([
      v4({ cmd: "publish", topic: "t", payload: Buffer.from([0x50, 0x02, 0x00, 0x07]), qos: 1, messageId: 3 }),
      v4({ cmd: "pubrec", messageId: 258 }),
      v4({ cmd: "pingreq" }),
      v4({ cmd: "pubcomp", messageId: 9 }),
      v4({ cmd: "pubrec", messageId: 65535 }),
    ]);
    expect(scan([stream])).toEqual([
      { messageId: 258, reasonCode: 0 },
      { messageId: 65535, reasonCode: 0 },
    ]);
  });

  it("finds the same PUBRECs whatever byte the stream is split at", () => {
    const stream = Buffer.concat([
      v5({ cmd: "publish", topic: "a/b", payload: Buffer.alloc(200, 0x50), qos: 0 }),
      v5({ cmd: "pubrec", messageId: 513, reasonCode: 0x80, properties: { reasonString: "busy" } }),
      v5({ cmd: "pubrec", messageId: 2 }),
    ]);
    const found = scan([...stream].map((byte) => Uint8Array.of(byte)));
    expect(found).toEqual([
      { messageId: 513, reasonCode: 0x80 },
      { messageId: 2, reasonCode: 0 },
    ]);
  });

  it("finds nothing after a malformed remaining length", () => {
    expect(scan([Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff]), v4({ cmd: "pubrec", messageId: 1 })])).toEqual([]);
  });

  it("finds the acknowledgement types it is given instead", () => {
    const framer = new PacketFramer();
    const scanner = new PubrecScanner(new Set([4, 7]));
    const stream = [
      v5({ cmd: "puback", messageId: 5 }),
      v4({ cmd: "pubrec", messageId: 6 }),
      v4({ cmd: "pubcomp", messageId: 7 }),
    ];
    framer.feed(Buffer.concat(stream), scanner);
    expect(scanner.take().map((a) => a.messageId)).toEqual([5, 7]);
    expect(scanner.take()).toEqual([]);
  });
});
