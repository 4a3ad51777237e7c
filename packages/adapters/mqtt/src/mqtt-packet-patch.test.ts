import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * patches/mqtt-packet@9.0.2.patch: mqtt-packet's parser and writer call a no-op instead of `debug` when their
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
