import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { warmUp } from "./warm-up.js";

/** A logger whose lines the test can read. */
function recordingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: "info" }, sink), lines };
}

describe("the connect path warm-up", () => {
  it("authenticates and takes one QoS 1 publish from every warm-up device through the adapter's own code", async () => {
    const { logger, lines } = recordingLogger();
    const handlesBefore = process
      .getActiveResourcesInfo()
      .filter((r) => r === "TCPServerWrap" || r === "TCPSocketWrap");
    const report = await warmUp(300, logger);
    expect(report).toMatchObject({ admitted: 300, published: 300 });
    expect(report.ms).toBeGreaterThan(0);
    await expect
      .poll(() => lines.find((l) => l.msg === "connect path warmed up"))
      .toMatchObject({
        connects: 300,
        admitted: 300,
        published: 300,
      });
    // Its listener and every connection are gone.
    await expect
      .poll(() => process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap" || r === "TCPSocketWrap"))
      .toEqual(handlesBefore);
  });

  it("does nothing when told to make no connections", async () => {
    const { logger, lines } = recordingLogger();
    expect(await warmUp(0, logger)).toEqual({ admitted: 0, published: 0, ms: 0 });
    expect(lines).toEqual([]);
  });
});
