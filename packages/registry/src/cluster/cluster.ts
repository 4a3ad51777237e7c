import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../store/schema.js";
import type { CommandRouter } from "../router/commands.js";
import type { LiveUpdates } from "../sessions/live-updates.js";
import type { SessionTable } from "../sessions/session-table.js";
import type { ModbusConfigPush } from "../modbus/config-push.js";
import { ClusterBus, type ClusterMessage } from "./cluster-bus.js";
import { NodeHeartbeat } from "./node-heartbeat.js";
import { HandoverMarks } from "./handover-marks.js";
import { SessionRows } from "./session-rows.js";
import { REPLACED_REASON, SessionTakeover } from "./session-takeover.js";

/** What a node of several needs to join them. */
export interface ClusterDeps {
  db: Kysely<Database>;
  /** The PostgreSQL URL (the LISTEN connection is opened on it). */
  databaseUrl: string;
  nodeId: string;
  /** Where this node's REST API and gRPC endpoint listen, for the health report of every node. */
  addresses: { apiAddress: string; grpcAddress: string };
  sessions: SessionTable;
  live: LiveUpdates;
  commands: CommandRouter;
  /** Modbus gateways' configuration: a change made here is pushed by the nodes holding the tenant's gateways. */
  modbusConfig: Pick<ModbusConfigPush, "remote" | "tenantChangedHere">;
  logger: Logger;
}

/**
 * One central node among several on one PostgreSQL database (docs/scale-out.md): it beats in `cluster_nodes`,
 * records the adapter streams and sessions it holds, and routes what concerns sessions held elsewhere — kicks,
 * policy, subscription and tenant limit pushes, queued commands — to the other nodes through `cluster_messages`.
 * Each node acts on what it holds; this node's own sessions are served in process, with no round trip.
 */
export class Cluster {
  readonly heartbeat: NodeHeartbeat;
  readonly rows: SessionRows;
  private readonly bus: ClusterBus;
  private readonly takeover: SessionTakeover;
  private readonly handover: HandoverMarks;

  constructor(private readonly deps: ClusterDeps) {
    this.heartbeat = new NodeHeartbeat(deps.db, deps.nodeId, deps.addresses, deps.logger);
    this.handover = new HandoverMarks(deps.db, deps.logger);
    this.takeover = new SessionTakeover(
      deps.db,
      deps.nodeId,
      (id, sessionId, reason) => deps.sessions.replaceHere(id, sessionId, reason),
      (sessions) => this.bus.broadcast({ kind: "replaced", sessions, reason: REPLACED_REASON }),
      deps.logger,
    );
    this.rows = new SessionRows(deps.db, deps.nodeId, deps.logger, (events) => this.takeover.opened(events));
    this.bus = new ClusterBus(
      deps.db,
      deps.databaseUrl,
      deps.nodeId,
      () => this.heartbeat.otherLiveNodesNow(),
      (m) => this.handle(m),
      deps.logger,
    );
  }

  /** Joins: beats, listens, and routes this node's kicks, pushes and commands for sessions held elsewhere. */
  async start(): Promise<void> {
    await this.heartbeat.start();
    await this.bus.start();
    const { sessions, live, commands, modbusConfig, db } = this.deps;
    const bus = this.bus;
    sessions.remote = { kicked: (id, reason) => bus.broadcast({ kind: "kick", deviceIntIds: [id], reason }) };
    live.remote = {
      policiesChanged: (ids) => bus.broadcast({ kind: "policies", deviceIntIds: ids }),
      subscriptionsChanged: (ids) => bus.broadcast({ kind: "subscriptions", deviceIntIds: ids }),
      retainedChanged: (ids) => bus.broadcast({ kind: "retained", deviceIntIds: ids }),
      tenantLimitsChanged: (tenantId, maxUplinkRate) =>
        bus.broadcast({ kind: "tenantLimits", tenantId, maxUplinkRate }),
    };
    modbusConfig.remote = { tenantChanged: (tenantId) => bus.broadcast({ kind: "modbusConfig", tenantId }) };
    commands.remote = {
      deliver: (ids) => bus.broadcast({ kind: "deliver", deviceIntIds: ids }),
      heldElsewhere: (ids) => this.rows.heldElsewhere(db, ids),
      handedOver: (id, at) => this.handover.mark(id, at),
    };
  }

  /** Leaves: what is queued goes out, the node is marked stopped (the others see it gone at once). */
  async stop(): Promise<void> {
    this.deps.sessions.remote = undefined;
    this.deps.live.remote = undefined;
    this.deps.commands.remote = undefined;
    this.deps.modbusConfig.remote = undefined;
    await this.bus.stop();
    await this.handover.stop();
    await this.heartbeat.stop();
  }

  /** A message routed here by another node: applied to the sessions this node holds. */
  private async handle(m: ClusterMessage): Promise<void> {
    const { sessions, live, commands, modbusConfig } = this.deps;
    switch (m.kind) {
      case "kick":
        for (const id of m.deviceIntIds) sessions.kickHere(id, m.reason);
        return;
      case "policies":
        return live.policiesChangedHere(m.deviceIntIds);
      case "subscriptions":
        return live.subscriptionsChangedHere(m.deviceIntIds);
      case "retained":
        return live.retainedChangedHere(m.deviceIntIds);
      case "tenantLimits":
        return live.tenantLimitsChangedHere(m.tenantId, m.maxUplinkRate);
      case "modbusConfig":
        return modbusConfig.tenantChangedHere(m.tenantId);
      case "replaced":
        for (const r of m.sessions) sessions.replaceHere(r.deviceIntId, r.sessionId, m.reason);
        return;
      case "deliver":
        await commands.deliverHere(m.deviceIntIds);
        return;
    }
  }
}
