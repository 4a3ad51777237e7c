import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { engines } from "../store/test-engines.js";
import { NODE_EXPIRY_MS, NodeHeartbeat, listNodes } from "./node-heartbeat.js";

const logger = pino({ level: "silent" });
afterAll(() => Promise.all(engines.map((e) => e.cleanup())));

const addresses = { apiAddress: "127.0.0.1:8080", grpcAddress: "127.0.0.1:50051" };

describe.each(engines)("node heartbeats ($name)", (engine) => {
  it("shows a node that stops cleanly as gone at once, and one that stops beating once its beat expired", async () => {
    const { store } = await engine.open();
    const a = new NodeHeartbeat(store.db, "a", addresses, logger);
    const b = new NodeHeartbeat(store.db, "b", addresses, logger);
    const t0 = Date.now();
    await a.start(t0);
    await b.start(t0);
    await a.beat(t0);
    expect(a.otherLiveNodes()).toEqual(["b"]);
    await b.stop(t0 + 1);
    const states = async (now: number) => (await listNodes(store.db, now)).map((n) => [n.nodeId, n.alive]).sort();
    expect(await states(t0 + 2)).toEqual([
      ["a", true],
      ["b", false],
    ]);
    // A killed node just stops beating: gone once NODE_EXPIRY_MS passed since its last beat.
    expect(await states(t0 + NODE_EXPIRY_MS)).toEqual([
      ["a", true],
      ["b", false],
    ]);
    expect(await states(t0 + NODE_EXPIRY_MS + 1)).toEqual([
      ["a", false],
      ["b", false],
    ]);
    await a.stop();
  });

  it("names a node started since its last beat when asked for the live nodes now", async () => {
    const { store } = await engine.open();
    const a = new NodeHeartbeat(store.db, "a", addresses, logger);
    const b = new NodeHeartbeat(store.db, "b", addresses, logger);
    await a.start();
    await b.start();
    // a's last read of the node list came before b started: only a fresh read shows b.
    expect(a.otherLiveNodes()).toEqual([]);
    expect(await a.otherLiveNodesNow()).toEqual(["b"]);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("refuses a node id a live node is using, and takes over one whose node is gone", async () => {
    const { store } = await engine.open();
    const first = new NodeHeartbeat(store.db, "same", addresses, logger);
    const t0 = Date.now();
    await first.start(t0);
    await expect(new NodeHeartbeat(store.db, "same", addresses, logger).start(t0 + 1)).rejects.toThrow(
      "IOT_NODE_ID same is in use by a running node",
    );
    const again = new NodeHeartbeat(store.db, "same", addresses, logger);
    await again.start(t0 + NODE_EXPIRY_MS + 1);
    expect((await listNodes(store.db, t0 + NODE_EXPIRY_MS + 2)).map((n) => n.alive)).toEqual([true]);
    await first.stop();
    await again.stop();
  });
});
