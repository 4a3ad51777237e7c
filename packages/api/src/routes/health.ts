import { Hono } from "hono";
import type { AppDeps, Env } from "../deps.js";
import { label } from "../forms/labels.js";
import { formatDate } from "../forms/dates.js";

/** `GET /health`: the central node's state and the adapters attached to it (no auth). */
export function healthRoutes(deps: AppDeps) {
  return new Hono<Env>().get("/health", (c) =>
    c.json({
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
  );
}
