import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { Duplex } from "node:stream";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * patches/mqtt-packet@9.0.2.patch: the parser keeps its bytes in a plain buffer list, not a stream; its parser and
 * writer call a no-op instead of `debug` when their
 * namespace is off at start, and `debug` itself when it is on. Each case runs in a process of its own, where the
 * `debug` module mqtt-packet loads is replaced by one that counts its calls (enabled or not), before mqtt-packet loads.
 */
const mqttPacketPath = createRequire(import.meta.url).resolve("mqtt-packet");

/** Parses a PUBLISH and writes a PUBACK with mqtt-packet; answers how often its debug instances were called. */
async function debugCalls(enabled: boolean): Promise<number> {
  const script = `
    const { createRequire } = require("node:module");
    const debugPath = createRequire(${JSON.stringify(mqttPacketPath)}).resolve("debug");
    let calls = 0;
    const factory = () => Object.assign(() => void calls++, { enabled: ${enabled} });
    require.cache[debugPath] = { id: debugPath, filename: debugPath, loaded: true, exports: factory };
    const mqtt = require(${JSON.stringify(mqttPacketPath)});
    const parser = mqtt.parser({ protocolVersion: 4 });
    let packets = 0;
    parser.on("packet", () => packets++);
    parser.parse(mqtt.generate({ cmd: "publish", topic: "t/1", payload: Buffer.from("x"), qos: 1, messageId: 7 }));
    mqtt.writeToStream({ cmd: "puback", messageId: 7 }, { write: () => true });
    if (packets !== 1) throw new Error("the PUBLISH was not parsed");
    console.log(calls);
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", script]);
  return Number(stdout.trim());
}

describe("mqtt-packet's debug calls (patched)", () => {
  it("calls no debug function while its namespaces are off", async () => {
    expect(await debugCalls(false)).toBe(0);
  });

  it("still calls debug for every step when its namespaces are on at start", async () => {
    expect(await debugCalls(true)).toBeGreaterThan(5);
  });
});

describe("mqtt-packet's parser buffer (patched)", () => {
  const mqtt = createRequire(import.meta.url)("mqtt-packet") as typeof import("mqtt-packet");

  it("keeps a connection's bytes in a plain buffer list, not a stream made for every connection", () => {
    const parser = mqtt.parser({ protocolVersion: 4 }) as unknown as { _list: object };
    expect(parser._list).not.toBeInstanceOf(Duplex);
    expect("pipe" in parser._list).toBe(false);
  });

  it("parses packets split anywhere across chunks, and parses again after a malformed packet", () => {
    const parser = mqtt.parser({ protocolVersion: 4 });
    const topics: string[] = [];
    const errors: string[] = [];
    parser.on("packet", (p: { cmd: string; topic?: string }) => p.cmd === "publish" && topics.push(p.topic!));
    parser.on("error", (e: Error) => errors.push(e.message));
    const publish = (topic: string) =>
      mqtt.generate({
        cmd: "publish",
        topic,
        payload: Buffer.from("x"),
        qos: 1,
        messageId: 7,
        dup: false,
        retain: false,
      });
    const bytes = Buffer.concat([publish("a/1"), publish("b/22"), publish("c/333")]);
    for (let i = 0; i < bytes.length; i += 3) parser.parse(bytes.subarray(i, i + 3));
    expect(topics).toEqual(["a/1", "b/22", "c/333"]);
    // A PUBLISH with QoS 3 is malformed; the next parse starts on a fresh list.
    parser.parse(Buffer.from([0x36, 0x02, 0x00, 0x00]));
    expect(errors).toHaveLength(1);
    parser.parse(publish("d/4"));
    expect(topics).toEqual(["a/1", "b/22", "c/333", "d/4"]);
  });
});
