import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import { useTestRegistries } from "./grpc-test-server.js";

const { cleanups, registry } = useTestRegistries();

/** A client with the default backoff whose log lines at warn and above land in `warnings`. */
function client(addresses: string[]) {
  const warnings: string[] = [];
  const logger = pino({ level: "warn" }, { write: (s: string) => void warnings.push(JSON.parse(s).msg as string) });
  const c = new GrpcRegistryClient({ address: addresses, protocol: "mqtt", logger });
  cleanups.push(() => c.close());
  return { c, warnings };
}

describe("GrpcRegistryClient during a registry outage", () => {
  it("backs off from a node that ends every stream right after Hello, and logs the outage once", async () => {
    const s = await registry();
    const { c, warnings } = client([`127.0.0.1:${s.port}`]);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    await new Promise((r) => setTimeout(r, 2_100)); // stays up: the next loss starts from the first step
    s.endAfterHello = true;
    s.latest()!.call.emit("error", { code: 14, details: "database unavailable" });
    const from = s.streams.length;
    await new Promise((r) => setTimeout(r, 3_000));
    // 100, 200, 400, 800, 1600 ms steps (each half to all of it): at most 6 streams in 3 s. Resetting the backoff on
    // each HelloAck, as before, made about one every 100 ms.
    expect(s.streams.length - from).toBeGreaterThanOrEqual(2);
    expect(s.streams.length - from).toBeLessThanOrEqual(6);
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
