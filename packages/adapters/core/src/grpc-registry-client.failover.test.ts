import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import {
  freePort,
  TEST_SESSION as session,
  testUplink as uplink,
  type TestRegistryServer,
  useTestRegistries,
} from "./grpc-test-server.js";

const logger = pino({ level: "silent" });
const { cleanups, registry } = useTestRegistries();

function client(addresses: string[], helloTimeoutMs?: number): GrpcRegistryClient {
  const c = new GrpcRegistryClient({
    address: addresses,
    protocol: "mqtt",
    logger,
    backoff: { maxMs: 1000 },
    helloTimeoutMs,
  });
  cleanups.push(() => c.close());
  return c;
}

const deadAddress = async () => `127.0.0.1:${await freePort()}`;

/** The Hello of a server's stream `i`, and the uplink seqs that followed it. */
function streamOf(s: TestRegistryServer, i: number) {
  const received = s.streams[i]?.received ?? [];
  const hello = received[0]?.kind.case === "hello" ? received[0].kind.value : undefined;
  const seqs = received.flatMap((m) => (m.kind.case === "uplink" ? [Number(m.kind.value.seq)] : []));
  return { hello, seqs };
}

describe("GrpcRegistryClient with several registry addresses", () => {
  it("moves to the next node when its node dies, re-announces its sessions and replays unacked uplinks with the same instance id and seqs", async () => {
    const [a, b] = [await registry(), await registry()];
    const c = client([`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`]);
    c.sessionOpened(session, { clientIp: "10.0.0.1", keepAlive: 60 });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    expect(c.registryAddress).toBe(`127.0.0.1:${a.port}`);
    a.autoAck = false;
    const pending = [c.publish(uplink("x")), c.publish(uplink("y"))];
    await vi.waitFor(() => expect(streamOf(a, 0).seqs).toEqual([1, 2]));

    await a.stop();
    await Promise.all(pending);
    expect(c.registryAddress).toBe(`127.0.0.1:${b.port}`);
    const moved = streamOf(b, 0);
    expect(moved.hello?.instanceId).toBe(c.instanceId);
    expect(moved.hello?.sessions.map((s) => s.sessionId)).toEqual(["s1"]);
    expect(moved.seqs).toEqual([1, 2]);
    expect(c.pendingUplinks).toBe(0);
    // Unary calls follow the stream to the node that answers.
    const auth = await c.authenticate("mqtt", { kind: "token", clientId: "c", username: "u", token: "good" }, "");
    expect(auth.ok).toBe(true);
  });

  it("skips a node that does not answer and uses the next one from the start", async () => {
    const b = await registry();
    const c = client([await deadAddress(), `127.0.0.1:${b.port}`]);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"), { timeout: 2000 });
    expect(c.registryAddress).toBe(`127.0.0.1:${b.port}`);
    expect(b.streams).toHaveLength(1);
  });

  it("gives up on a node that accepts the stream but never answers Hello, and uses the next one", async () => {
    const [stuck, b] = [await registry(), await registry()];
    stuck.answerHello = false;
    const c = client([`127.0.0.1:${stuck.port}`, `127.0.0.1:${b.port}`], 300);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"), { timeout: 2000 });
    expect(c.registryAddress).toBe(`127.0.0.1:${b.port}`);
    expect(stuck.streams).toHaveLength(1);
  });

  it("stays on the node that answers when another stream of it fails, rather than going back to the first", async () => {
    const [a, b] = [await registry(), await registry()];
    const c = client([`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`]);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    a.latest()!.call.emit("error", { code: 14, details: "node going away" });
    await vi.waitFor(() => expect(b.streams).toHaveLength(1));
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    await c.publish(uplink("z"));
    expect(streamOf(b, 0).seqs).toEqual([1]);
    expect(a.streams).toHaveLength(1);
  });
});
