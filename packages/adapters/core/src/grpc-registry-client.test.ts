/**
 * The gRPC registry client's Connect stream: Hello with the live sessions, their opening and closing (batched when
 * the registry takes batches), and the stream's survival of drops, normal ends and registry restarts.
 */
import { describe, expect, it, vi } from "vitest";
import {
  startTestRegistry,
  streamKinds as kinds,
  streamSeqs as seqs,
  TEST_SESSION as session,
  testUplink as uplink,
  useTestRegistries,
} from "./grpc-test-server.js";

const { registry, client } = useTestRegistries();

describe("GrpcRegistryClient's stream and sessions", () => {
  it("sends Hello with every live session as the first message of the stream", async () => {
    const s = await registry();
    const c = client(s.port);
    c.sessionOpened(session, { clientIp: "10.0.0.1", keepAlive: 60 });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const first = s.streams[0]!.received[0]!;
    expect(first.kind.case).toBe("hello");
    if (first.kind.case !== "hello") return;
    expect(first.kind.value.instanceId).toBe(c.instanceId);
    expect(first.kind.value.instanceId).toMatch(/^mqtt-.+-[0-9a-f]{8}$/);
    expect(first.kind.value.sessions.map((x) => [x.sessionId, Number(x.deviceIntId), x.keepAlive])).toEqual([
      ["s1", 42, 60],
    ]);
  });

  it("sends the sessions opened in one turn of the event loop as one SessionOpenedBatch to a registry that takes them, before their uplinks", async () => {
    const s = await registry();
    s.sessionOpenedBatches = true;
    s.uplinkBatches = true;
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const opened = (id: string) => ({ ...session, sessionId: id });
    for (const id of ["s1", "s2", "s3"]) c.sessionOpened(opened(id), { clientIp: "10.0.0.1", keepAlive: 60 });
    await c.publish(uplink("a"));
    c.sessionOpened(opened("s4"), { clientIp: "10.0.0.2", keepAlive: 30 });
    c.sessionClosed(opened("s4"), "gone"); // its SessionOpened goes first
    await vi.waitFor(() => expect(kinds(s, 0)).toContain("sessionClosed"));
    const sent = s.streams[0]!.received.slice(1);
    expect(sent.map((m) => m.kind.case)).toEqual(["sessionOpenedBatch", "uplink", "sessionOpened", "sessionClosed"]);
    const batch = sent[0]!.kind.case === "sessionOpenedBatch" ? sent[0]!.kind.value.sessions : [];
    expect(batch.map((o) => [o.sessionId, Number(o.deviceIntId), o.clientIp, o.keepAlive])).toEqual([
      ["s1", 42, "10.0.0.1", 60],
      ["s2", 42, "10.0.0.1", 60],
      ["s3", 42, "10.0.0.1", 60],
    ]);
  });

  it("sends each SessionOpened alone to a registry that does not say it takes batches", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    for (const id of ["s1", "s2"]) c.sessionOpened({ ...session, sessionId: id }, { clientIp: "", keepAlive: 0 });
    await vi.waitFor(() => expect(kinds(s, 0)).toEqual(["hello", "sessionOpened", "sessionOpened"]));
  });

  it("replays unacked uplinks with their original seqs after the registry drops the stream", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port);
    c.start();
    const ps = ["a", "b", "c"].map((t) => c.publish(uplink(t)));
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1, 2, 3]));
    s.push({ case: "uplinkAck", value: { seqs: [1n] } });
    await ps[0];
    s.latest()!.call.emit("error", { code: 14, details: "registry going away" });
    await vi.waitFor(() => expect(s.streams.length).toBe(2));
    await vi.waitFor(() => expect(seqs(s, 1)).toEqual([2, 3]));
    expect(kinds(s, 1)[0]).toBe("hello");
    s.push({ case: "uplinkAck", value: { seqs: [2n, 3n] } });
    await Promise.all(ps);
    const later = c.publish(uplink("d"));
    await vi.waitFor(() => expect(seqs(s, 1)).toEqual([2, 3, 4]));
    s.push({ case: "uplinkAck", value: { seqs: [4n] } });
    await later;
  });

  it("reconnects when the registry ends the stream normally", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    s.latest()!.call.end();
    await vi.waitFor(() => expect(s.streams.length).toBe(2));
    await vi.waitFor(() => expect(c.state).toBe("connected"));
  });

  it("survives a registry restart on the same port and delivers what was buffered meanwhile", async () => {
    const first = await startTestRegistry();
    const c = client(first.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    await first.stop();
    await vi.waitFor(() => expect(c.state).toBe("connecting"));
    const p = c.publish(uplink("while-down"));
    const second = await registry(first.port);
    await p;
    expect(kinds(second, second.streams.length - 1)[0]).toBe("hello");
    expect(seqs(second, second.streams.length - 1)).toEqual([1]);
  });

  it("reports session open and close on the stream", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    c.sessionOpened(session, { clientIp: "10.0.0.1", keepAlive: 30 });
    c.sessionClosed(session, "client disconnected");
    await vi.waitFor(() => expect(kinds(s, 0)).toEqual(["hello", "sessionOpened", "sessionClosed"]));
  });
});
