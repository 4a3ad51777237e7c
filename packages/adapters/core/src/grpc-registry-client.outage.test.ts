import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import type { BackoffOptions } from "@iot/config";
import { quietFor } from "@iot/config/testing";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import { useTestRegistries } from "./grpc-test-server.js";

const { cleanups, registry } = useTestRegistries();

/** A client with the default backoff (or `backoff`) whose log lines at warn and above land in `warnings`. */
function client(addresses: string[], backoff?: BackoffOptions) {
  const warnings: string[] = [];
  const logger = pino({ level: "warn" }, { write: (s: string) => void warnings.push(JSON.parse(s).msg as string) });
  const c = new GrpcRegistryClient({ address: addresses, protocol: "mqtt", logger, backoff });
  cleanups.push(() => c.close());
  return { c, warnings };
}

describe("GrpcRegistryClient during a registry outage", () => {
  it("backs off from a node that ends every stream right after Hello, and logs the outage once", async () => {
    const s = await registry();
    // The default steps (100 ms doubling to 2 s) with the jitter at its low end: each wait is half its step, the
    // shortest the client may ever wait.
    const { c, warnings } = client([`127.0.0.1:${s.port}`], { random: () => 0 });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    await quietFor(2_100, "the link stays up past its 2 s stability window: the next loss starts from the first step");
    s.endAfterHello = true;
    s.latest()!.call.emit("error", { code: 14, details: "database unavailable" });
    const from = s.streams.length;
    const lostAt = performance.now();
    await vi.waitFor(() => expect(s.streams.length - from).toBeGreaterThanOrEqual(4), { timeout: 5_000 });
    // Waits of 50, 100, 200 and 400 ms before the four streams after the loss: 750 ms at least. Resetting the backoff
    // on each HelloAck, as before, made them 50 ms apart: all four within about 200 ms.
    expect(performance.now() - lostAt).toBeGreaterThanOrEqual(740);
    expect(warnings).toEqual(["registry stream lost; reconnecting", "registry link up again"]);
    s.endAfterHello = false;
    await vi.waitFor(() => expect(c.state).toBe("connected"), { timeout: 3_000 });
  }, 15_000);

  it("still moves to the next node at once when its node drops the stream right after Hello", async () => {
    const [a, b] = [await registry(), await registry()];
    a.endAfterHello = true;
    const { c } = client([`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`]);
    c.start();
    await vi.waitFor(() => expect(b.streams.length).toBe(1), { timeout: 2_000 });
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    expect(c.registryAddress).toBe(`127.0.0.1:${b.port}`);
    expect(a.streams.length).toBe(1);
  });
});
