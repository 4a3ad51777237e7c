import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { formatDate } from "../forms/dates.js";
import { label } from "../forms/labels.js";
import { ApiRouter } from "../router.js";

/** `GET /health`: the central node's state and the adapters attached to it (no auth). */
export function healthRoutes(deps: AppDeps, docs: ApiDocs) {
  return new ApiRouter(docs, "Service").get(
    "/health",
    { summary: "Central node state and attached adapters", open: true, operationId: "getHealth" },
    () => ({
      status: "ok",
      nodeId: deps.nodeId,
      database: deps.store.engine,
      uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
      adapters: deps.sessions.snapshot().map((a) => ({
        protocol: a.protocol,
        protocolLabel: label("cloudProtocol", a.protocol),
        instance: a.instanceId,
        version: a.version,
        attachedAt: formatDate(a.attachedAt),
        connectedDevices: a.connectedDevices,
      })),
    }),
  ).app;
}
