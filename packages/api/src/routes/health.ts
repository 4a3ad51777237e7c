import { z } from "zod";
import { pingDatabase } from "@iot/registry";
import type { AppDeps } from "../deps.js";
import type { ApiDocs } from "../docs.js";
import { formatDate } from "../forms/dates.js";
import { label } from "../forms/labels.js";
import { ApiRouter } from "../router.js";

const adapterFields = {
  protocol: z.number().int(),
  protocolLabel: z.string().nullable(),
  instance: z.string(),
  version: z.string(),
  attachedAt: z.string().nullable(),
  sessions: z.number().int(),
};
/** The health answer. */
const healthRecord = z.object({
  status: z.enum(["ok", "degraded"]),
  nodeId: z.string(),
  database: z.string(),
  databaseHealth: z.object({
    engine: z.string(),
    ok: z.boolean(),
    latencyMs: z.number(),
    error: z.string().optional(),
  }),
  /** IOT_DATABASE_READ_URL: each read replica's state and lag at the last poll (absent without replicas). */
  replicas: z
    .array(
      z.object({
        name: z.string(),
        state: z.enum(["up", "lagging", "down"]),
        lagSeconds: z.number().optional(),
        lagBytes: z.number().optional(),
        error: z.string().optional(),
      }),
    )
    .optional(),
  uptimeSeconds: z.number().int(),
  adapters: z.array(z.object({ ...adapterFields, state: z.literal("attached"), connectedDevices: z.number().int() })),
  nodes: z.array(
    z.object({
      nodeId: z.string(),
      state: z.enum(["up", "gone"]),
      apiAddress: z.string().nullable().optional(),
      grpcAddress: z.string().nullable().optional(),
      startedAt: z.string().nullable(),
      heartbeatAt: z.string().nullable().optional(),
      stoppedAt: z.string().nullable().optional(),
      adapters: z.array(z.object(adapterFields)),
    }),
  ),
  jobs: z.array(z.string()),
  brokers: z.record(z.string(), z.string()),
  reconnectingAdapters: z.array(
    z.object({ ...adapterFields, state: z.literal("reconnecting"), detachedAt: z.string().nullable() }),
  ),
});

/**
 * `GET /health`: the central node's state, its database's (engine, a `select 1` round trip) and every adapter
 * instance attached to it (no auth). `status` is "degraded" while the database does not answer. `nodes` lists the
 * central nodes sharing the database (only this one on SQLite) with the adapters each holds, `jobs` the singleton
 * jobs this node runs, `replicas` the read replicas' state and lag (IOT_DATABASE_READ_URL; a replica down or lagging
 * is skipped, and leaves `status` "ok": the primary serves its reads). `brokers` are the device listener addresses
 * Form 2 device details carry (`mqttBroker` → `host:port`, "" when off), answered in either form so a client
 * (`iot simulate`) reaches this fleet's adapters.
 */
export function healthRoutes(deps: AppDeps, docs: ApiDocs) {
  return new ApiRouter(docs, "Service").get(
    "/health",
    {
      summary: "Central node state, database state and attached adapters",
      open: true,
      operationId: "getHealth",
      response: healthRecord,
    },
    async () => {
      const databaseHealth = await pingDatabase(deps.store);
      const adapter = (a: { protocol: number; instanceId: string; version: string; attachedAt: number }) => ({
        protocol: a.protocol,
        protocolLabel: label("cloudProtocol", a.protocol),
        instance: a.instanceId,
        version: a.version,
        attachedAt: formatDate(a.attachedAt),
      });
      const nodes = deps.cluster
        ? await deps.cluster.nodes().then(
            (list) =>
              list.map((n) => ({
                nodeId: n.nodeId,
                state: n.alive ? ("up" as const) : ("gone" as const),
                apiAddress: n.apiAddress,
                grpcAddress: n.grpcAddress,
                startedAt: formatDate(n.startedAt),
                heartbeatAt: formatDate(n.heartbeatAt),
                ...(n.stoppedAt !== null ? { stoppedAt: formatDate(n.stoppedAt) } : {}),
                adapters: n.adapters.map((a) => ({ ...adapter(a), sessions: a.sessions })),
              })),
            () => [], // the database does not answer: databaseHealth says so
          )
        : [
            {
              nodeId: deps.nodeId,
              state: "up" as const,
              startedAt: formatDate(deps.startedAt),
              adapters: deps.sessions.snapshot().map((a) => ({ ...adapter(a), sessions: a.sessions })),
            },
          ];
      return {
        status: databaseHealth.ok ? ("ok" as const) : ("degraded" as const),
        nodeId: deps.nodeId,
        database: deps.store.engine,
        databaseHealth,
        ...(deps.store.reads ? { replicas: deps.store.reads.status() } : {}),
        uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
        adapters: deps.sessions.snapshot().map((a) => ({
          protocol: a.protocol,
          protocolLabel: label("cloudProtocol", a.protocol),
          instance: a.instanceId,
          version: a.version,
          state: "attached" as const,
          attachedAt: formatDate(a.attachedAt),
          sessions: a.sessions,
          connectedDevices: a.connectedDevices,
        })),
        nodes,
        jobs: deps.jobs?.() ?? [],
        brokers: deps.brokers,
        // Detached instances whose devices count as online until IOT_SESSION_GRACE runs out or they come back.
        reconnectingAdapters: deps.sessions.parkedSnapshot().map((a) => ({
          protocol: a.protocol,
          protocolLabel: label("cloudProtocol", a.protocol),
          instance: a.instanceId,
          version: a.version,
          state: "reconnecting" as const,
          attachedAt: formatDate(a.attachedAt),
          detachedAt: formatDate(a.detachedAt),
          sessions: a.sessions,
        })),
      };
    },
  ).app;
}
