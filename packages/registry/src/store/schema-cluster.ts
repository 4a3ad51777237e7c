import type { Generated } from "kysely";

/**
 * Tables of several central nodes over one PostgreSQL database (docs/scale-out.md). SQLite has them too (one
 * migration list per engine stays alike) but a single node never writes them.
 */

/** A central node: it beats every few seconds; one whose beat is older than the expiry, or that stopped, is gone. */
export interface ClusterNodesTable {
  nodeId: string;
  /** Where its REST API and gRPC endpoint listen (host:port as configured), for the health report. */
  apiAddress: string;
  grpcAddress: string;
  startedAt: number;
  heartbeatAt: number;
  /** Set by a clean stop: the node is gone at once. */
  stoppedAt: number | null;
}

/** An adapter stream attached to a node. */
export interface ClusterAdaptersTable {
  instanceId: string;
  nodeId: string;
  protocol: number;
  version: string;
  attachedAt: number;
}

/** A device session and the node (and adapter instance) holding it: where downlinks, kicks and pushes go. */
export interface ClusterSessionsTable {
  sessionId: string;
  deviceIntId: number;
  nodeId: string;
  instanceId: string;
  openedAt: number;
}

/** The durable routing outbox: work for one node, taken (deleted) by it after a NOTIFY wake-up or a poll. */
export interface ClusterMessagesTable {
  id: Generated<number>;
  nodeId: string;
  /** JSON text of a ClusterMessage (cluster/cluster-messages.ts). */
  body: string;
  createAt: number;
}

/** A singleton job's lease: one node runs the job while its lease has not expired. */
export interface ClusterLeasesTable {
  name: string;
  nodeId: string;
  expiresAt: number;
}

/** A failed login, counted by every node (the login rate limit across nodes). */
export interface LoginFailuresTable {
  key: string;
  at: number;
}
