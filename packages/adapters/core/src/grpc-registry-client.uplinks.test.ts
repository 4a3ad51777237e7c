/**
 * The gRPC registry client's uplinks: settled by the registry's ack (or rejection), batched per turn of the event
 * loop for a registry that takes batches, refused when the buffer is full or the tenant over its rate.
 */
import { describe, expect, it, vi } from "vitest";
import { quietFor } from "@iot/config/testing";
import {
  freePort,
  streamKinds as kinds,
  streamSeqs as seqs,
  TEST_SESSION as session,
  testUplink as uplink,
  useTestRegistries,
} from "./grpc-test-server.js";

const { registry, client } = useTestRegistries();

describe("GrpcRegistryClient uplinks", () => {
  it("resolves publish only after the registry acked that uplink's seq", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port);
    c.start();
    let acked = false;
    const p = c.publish(uplink("data")).then(() => (acked = true));
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1]));
    await quietFor(50, "no ack yet: publish must not resolve meanwhile");
    expect(acked).toBe(false);
    s.push({ case: "uplinkAck", value: { seqs: [1n] } });
    await p;
    expect(c.pendingUplinks).toBe(0);
  });

  it("sends the uplinks of one turn of the event loop as one UplinkBatch in seq order to a registry that takes them", async () => {
    const s = await registry();
    s.uplinkBatches = true;
    const c = client(s.port);
    c.sessionOpened(session, { clientIp: "10.0.0.1", keepAlive: 60 });
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const published = ["a", "b", "c"].map((t) => c.publish(uplink(t)));
    c.sessionClosed(session, "gone"); // goes after the uplinks queued before it
    await Promise.all(published);
    await c.publish(uplink("alone"));
    const sent = s.streams[0]!.received.slice(1);
    expect(sent.map((m) => m.kind.case)).toEqual(["uplinkBatch", "sessionClosed", "uplink"]);
    const batch = sent[0]!.kind.case === "uplinkBatch" ? sent[0]!.kind.value.uplinks : [];
    expect(batch.map((u) => [Number(u.seq), u.topic])).toEqual([
      [1, "a"],
      [2, "b"],
      [3, "c"],
    ]);
    expect(c.pendingUplinks).toBe(0);
  });

  it("sends each uplink alone to a registry that does not say it takes batches", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    await Promise.all(["a", "b"].map((t) => c.publish(uplink(t))));
    expect(kinds(s, 0)).toEqual(["hello", "uplink", "uplink"]);
    expect(seqs(s, 0)).toEqual([1, 2]);
  });

  it("drops uplinks the registry rejected instead of replaying them", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port);
    c.start();
    const p = c.publish(uplink("x"));
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1]));
    s.push({ case: "uplinkAck", value: { rejected: [{ seq: 1n, reason: "unknown device" }] } });
    await expect(p).rejects.toMatchObject({ code: "UPLINK_REJECTED" });
    expect(c.pendingUplinks).toBe(0);
  });

  it("rejects publish with BUFFER_FULL once the buffer limit is reached", async () => {
    const c = client(await freePort(), { bufferLimit: 2 });
    c.start();
    void c.publish(uplink("a")).catch(() => undefined);
    void c.publish(uplink("b")).catch(() => undefined);
    await expect(c.publish(uplink("c"))).rejects.toMatchObject({ code: "BUFFER_FULL" });
  });

  it("publishThen with waitForRoom sends an uplink that found the buffer full once an ack makes room, in order", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port, { bufferLimit: 2 });
    c.start();
    const calls: string[] = [];
    for (const topic of ["a", "b", "c"])
      c.publishThen(uplink(topic), (err) => calls.push(err ? err.message : topic), true);
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1, 2]));
    await quietFor(20, "the buffer is full: the third uplink must not go out, nor any callback run, before an ack");
    expect([seqs(s, 0), calls]).toEqual([[1, 2], []]);
    s.push({ case: "uplinkAck", value: { seqs: [1n] } });
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1, 2, 3]));
    s.push({ case: "uplinkAck", value: { seqs: [2n, 3n] } });
    await vi.waitFor(() => expect(calls).toEqual(["a", "b", "c"]));
    expect(c.pendingUplinks).toBe(0);
  });

  it("publishThen calls back once, after the registry acked the uplink, with no error", async () => {
    const s = await registry();
    s.autoAck = false;
    const c = client(s.port);
    c.start();
    const calls: (Error | undefined)[] = [];
    c.publishThen(uplink("data"), (err) => calls.push(err));
    await vi.waitFor(() => expect(seqs(s, 0)).toEqual([1]));
    expect(calls).toEqual([]);
    s.push({ case: "uplinkAck", value: { seqs: [1n, 1n] } });
    await vi.waitFor(() => expect(calls).toEqual([undefined]));
    await quietFor(20, "the ack named the seq twice: a second callback would come within this");
    expect(calls).toEqual([undefined]);
  });

  it("publishThen calls back with the refusal on a later tick, never before it returns", async () => {
    const c = client(await freePort(), { bufferLimit: 1 });
    c.start();
    c.publishThen(uplink("a"), () => undefined);
    const calls: (Error | undefined)[] = [];
    c.publishThen(uplink("b"), (err) => calls.push(err));
    expect(calls).toEqual([]);
    await vi.waitFor(() => expect(calls).toEqual([expect.objectContaining({ code: "BUFFER_FULL" })]));
  });

  it("refuses uplinks over the tenant's rate from Authenticate without sending them, until a push lifts it", async () => {
    const s = await registry();
    const c = client(s.port);
    c.start();
    await vi.waitFor(() => expect(c.state).toBe("connected"));
    const ok = await c.authenticate("mqtt", { kind: "token", clientId: "", username: "u", token: "limited" }, "");
    expect(ok.ok && ok.session.tenantUplinkRate).toBe(2);
    await c.publish(uplink("a"));
    await c.publish(uplink("b"));
    await expect(c.publish(uplink("c"))).rejects.toMatchObject({ code: "RATE_LIMITED" });
    await expect(c.publish({ ...uplink("other tenant"), tenantId: "t2" })).resolves.toBeUndefined();
    expect(seqs(s, 0)).toHaveLength(3);
    s.push({ case: "tenantLimits", value: { tenantId: "t1", maxUplinkRate: 0 } });
    await vi.waitFor(() => c.publish(uplink("d")));
    expect(seqs(s, 0)).toHaveLength(4);
  });
});
