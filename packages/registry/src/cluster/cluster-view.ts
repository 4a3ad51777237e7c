import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import { listNodes, type ClusterNode } from "./node-heartbeat.js";

/** An adapter stream as every node sees it. */
export interface ClusterAdapterView {
  instanceId: string;
  protocol: number;
  version: string;
  attachedAt: number;
  /** Device sessions recorded for it. */
  sessions: number;
}

/** A node with the adapter streams it holds, for the health report. */
export interface ClusterNodeView extends ClusterNode {
  adapters: ClusterAdapterView[];
}

/** Every known node (alive or gone, newest first) with its adapters and their session counts, in three queries. */
export async function describeCluster(db: Kysely<Database>, now = Date.now()): Promise<ClusterNodeView[]> {
  const nodes = await listNodes(db, now);
  const adapters = await db.selectFrom("clusterAdapters").selectAll().orderBy("attachedAt").execute();
  const counts = await db
    .selectFrom("clusterSessions")
    .select(["instanceId", (eb) => eb.fn.countAll<number>().as("n")])
    .groupBy("instanceId")
    .execute();
  const sessions = new Map(counts.map((c) => [c.instanceId, Number(c.n)]));
  return nodes.map((n) => ({
    ...n,
    adapters: adapters
      .filter((a) => a.nodeId === n.nodeId)
      .map(({ nodeId: _node, ...a }) => ({ ...a, sessions: sessions.get(a.instanceId) ?? 0 })),
  }));
}
