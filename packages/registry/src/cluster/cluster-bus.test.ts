import { randomBytes } from "node:crypto";
import pino from "pino";
import { quietFor } from "@iot/config/testing";
import { afterAll, describe, expect, it } from "vitest";
import { postgresEngine } from "../store/test-engines.js";
import { ClusterBus, type ClusterMessage } from "./cluster-bus.js";

const logger = pino({ level: "silent" });
afterAll(() => postgresEngine?.cleanup());

/** Node ids unique to this run: NOTIFY channels are database-wide, whatever the schema. */
const nodeId = (name: string) => `${name}-${randomBytes(4).toString("hex")}`;

describe.skipIf(postgresEngine === undefined)("routing between nodes (PostgreSQL)", () => {
  const engine = postgresEngine!;

  it("carries a burst of messages as one row and one wake-up per node, taken in order by the node it was for", async () => {
    const { store } = await engine.open();
    const [a, b, c] = [nodeId("a"), nodeId("b"), nodeId("c")];
    const got: Record<string, ClusterMessage[]> = { [b]: [], [c]: [] };
    const bus = (self: string, targets: string[]) =>
      new ClusterBus(
        store.db,
        engine.url!,
        self,
        () => targets,
        async (m) => void got[self]!.push(m),
        logger,
      );
    const sender = bus(a, [b, c]);
    const burst: ClusterMessage[] = Array.from({ length: 100 }, (_, i) => ({ kind: "deliver", deviceIntIds: [i] }));
    for (const m of burst) sender.broadcast(m);
    await sender.stop(); // sends what is queued
    const rows = await store.db.selectFrom("clusterMessages").select(["nodeId", "body"]).orderBy("nodeId").execute();
    expect(rows.map((r) => r.nodeId)).toEqual([b, c].sort());
    expect(JSON.parse(rows[0]!.body)).toEqual(burst);

    // B starts: it takes what waits for it; C's row stays for C.
    const receiver = bus(b, []);
    await receiver.start();
    await expect.poll(() => got[b]!.length).toBe(100);
    expect(got[b]).toEqual(burst);
    expect((await store.db.selectFrom("clusterMessages").select("nodeId").execute()).map((r) => r.nodeId)).toEqual([c]);
    await receiver.stop();
  });

  it("wakes a listening node within a fraction of a second (NOTIFY), well before its safety-net poll", async () => {
    const { store } = await engine.open();
    const [a, b] = [nodeId("a"), nodeId("b")];
    const arrived: number[] = [];
    const receiver = new ClusterBus(
      store.db,
      engine.url!,
      b,
      () => [],
      async () => void arrived.push(Date.now()),
      logger,
    );
    await receiver.start();
    const sender = new ClusterBus(
      store.db,
      engine.url!,
      a,
      () => [b],
      async () => {},
      logger,
    );
    await quietFor(100, "the receiver's start-up poll is over: what arrives after came by NOTIFY");
    const sent = Date.now();
    sender.broadcast({ kind: "kick", deviceIntIds: [7], reason: "device blocked" });
    await expect.poll(() => arrived.length, { timeout: 1_500, interval: 10 }).toBe(1);
    expect(arrived[0]! - sent).toBeLessThan(1_000);
    await sender.stop();
    await receiver.stop();
  });
});
