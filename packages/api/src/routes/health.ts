import { pingDatabase } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { formatDate } from "../forms/dates.js";
import { label } from "../forms/labels.js";
import { ApiRouter } from "../router.js";

/**
 * `GET /health`: the central node's state, its database's (engine, a `select 1` round trip) and every adapter
 * instance attached to it (no auth). `status` is "degraded" while the database does not answer.
 */
export function healthRoutes(deps: AppDeps, docs: ApiDocs) {
  return new ApiRouter(docs, "Service").get(
    "/health",
    { summary: "Central node state, database state and attached adapters", open: true, operationId: "getHealth" },
    async () => {
      const databaseHealth = await pingDatabase(deps.store);
      return {
        status: databaseHealth.ok ? "ok" : "degraded",
        nodeId: deps.nodeId,
        database: deps.store.engine,
        databaseHealth,
        uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
        adapters: deps.sessions.snapshot().map((a) => ({
          protocol: a.protocol,
          protocolLabel: label("cloudProtocol", a.protocol),
          instance: a.instanceId,
          version: a.version,
          state: "attached",
          attachedAt: formatDate(a.attachedAt),
          sessions: a.sessions,
          connectedDevices: a.connectedDevices,
        })),
        // Detached instances whose devices count as online until IOT_SESSION_GRACE runs out or they come back.
        reconnectingAdapters: deps.sessions.parkedSnapshot().map((a) => ({
          protocol: a.protocol,
          protocolLabel: label("cloudProtocol", a.protocol),
          instance: a.instanceId,
          version: a.version,
          state: "reconnecting",
          attachedAt: formatDate(a.attachedAt),
          detachedAt: formatDate(a.detachedAt),
          sessions: a.sessions,
        })),
      };
    },
  ).app;
}
