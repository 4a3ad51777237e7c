/**
 * The registry's side of an adapter instance's Connect stream: Hello first (the adapter's link attached, its
 * re-announced sessions reconciled), then its messages handled in arrival order — session events
 * (adapter-sessions.ts), uplinks (uplink-intake.ts), downlink results, device checks — and the stream's end, after
 * which its sessions wait for the adapter to come back. What goes back to the adapter is in adapter-outbox.ts.
 */
import {
  AuthenticateAnswerSchema,
  create,
  DownlinkStatus,
  KickSchema,
  PolicyUpdateSchema,
  RetainedUpdateSchema,
  SubscriptionUpdateSchema,
  TenantLimitsSchema,
  grpc,
  storedSubscriptionFromProto,
  type AdapterMessage,
  type AuthenticateCall,
  type AuthenticateResponse,
  type DownlinkResult,
  type Hello,
} from "@iot/proto";
import type { GatewayRelay } from "../router/gateway-relay.js";
import { credentialsFromProto, policiesToProto, retainedToProto, subscriptionsToProto } from "./convert.js";
import type { Logger } from "pino";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { UplinkWriter } from "../store/store.js";
import type { ConnectivityWriter } from "../sessions/connectivity-writer.js";
import type { DataPipeline } from "../pipeline/data-pipeline.js";
import { PUBLISH_STATUS, type PublishStatus } from "../router/publish-status.js";
import type { CommandRouter } from "../router/commands.js";
import type { AdapterLink, SessionTable } from "../sessions/session-table.js";
import type { LiveUpdates } from "../sessions/live-updates.js";
import type { ModbusConfigPush } from "../modbus/config-push.js";
import { RegistryError } from "../errors.js";
import { recordLoraCounters } from "../lora/lora-sessions.js";
import type { SessionRows } from "../cluster/session-rows.js";
import { authenticateAll } from "./authenticate.js";
import { recordHandshakeFailure } from "../domain/handshake-failure.js";
import { AdapterOutbox, type ConnectCall } from "./adapter-outbox.js";
import { closeSession, sessionClosed, sessionOpened, sessionsReannounced } from "./adapter-sessions.js";
import { UplinkIntake } from "./uplink-intake.js";
import { updateSession } from "../sessions/mqtt-sessions.js";
import { SessionWrites } from "../sessions/mqtt-session-writes.js";

/** What one Connect stream needs from the registry. */
export interface ConnectDeps {
  db: Kysely<Database>;
  uplinks: UplinkWriter;
  sessions: SessionTable;
  commands: CommandRouter;
  nodeId: string;
  logger: Logger;
  /** How long a detached adapter's sessions count as alive while it may reconnect, ms. */
  sessionGraceMs: number;
  /** Resolves gateway relays (`devices/<child>/<topic>`) to the child device. */
  relay: GatewayRelay;
  /** Sends a just-opened session the policy and subscription pushes it missed. */
  live: LiveUpdates;
  /** Writes connect logs and the devices' online state in batches. */
  connectivity: ConnectivityWriter;
  /** Turns stored uplinks into data point values, metrics and alerts (behind ingest). */
  pipeline: Pick<DataPipeline, "wake">;
  /** Configures a Modbus gateway's adapter when the gateway's session opens. */
  modbusConfig: ModbusConfigPush;
  /** Shared transactions for persistent MQTT session writes (one per stream when absent). */
  mqttSessionWrites?: SessionWrites | undefined;
  /** Several nodes: records which adapter streams this node holds. */
  adapterRows?: Pick<SessionRows, "adapterAttached" | "adapterDetached" | "tenantConnectionsElsewhere"> | undefined;
}

const statusOf: Partial<Record<DownlinkStatus, PublishStatus>> = {
  [DownlinkStatus.DELIVERED]: PUBLISH_STATUS.delivered,
  [DownlinkStatus.SENT]: PUBLISH_STATUS.sent,
  [DownlinkStatus.FAILED]: PUBLISH_STATUS.failed,
  [DownlinkStatus.QUEUED]: PUBLISH_STATUS.issued,
};

/**
 * Serves one adapter instance's Connect stream: Hello first, then session
 * events, uplinks (acked in batches after their durable write), and downlink
 * results; downlinks and kicks go the other way through the AdapterLink.
 */
export function serveConnect(call: ConnectCall, deps: ConnectDeps): void {
  const log = deps.logger;
  let link: (AdapterLink & { sessions: Set<string> }) | undefined;
  const writes = deps.mqttSessionWrites ?? new SessionWrites(deps.db);
  let uplinks: UplinkIntake | undefined;
  const out = new AdapterOutbox(call, () => link?.protocol ?? 0);

  const fatal = (code: grpc.status, details: string) => {
    if (out.closed) return;
    log.warn({ instance: link?.instanceId, details }, "closing adapter stream");
    call.emit("error", { code, details }); // grpc-js sends this status and ends the stream
  };

  /**
   * Queued commands go out when a session of their device (or its gateway) opens here; the devices whose sessions
   * open in one turn of the event loop are looked up together (a reconnect storm opens thousands).
   */
  let opening: number[] = [];
  const deliverQueued = (deviceIntId: number) => {
    if (opening.push(deviceIntId) > 1) return;
    setImmediate(() => {
      const ids = opening;
      opening = [];
      deps.commands.deliverPending(ids).catch((err: unknown) => log.error({ err }, "sending queued commands failed"));
    });
  };

  const onHello = async (m: Hello) => {
    if (link) return fatal(grpc.status.FAILED_PRECONDITION, "second Hello on one stream");
    out.takesDownlinkBatches = m.downlinkBatches;
    const send = out.send.bind(out);
    link = {
      instanceId: m.instanceId,
      protocol: m.protocol,
      version: m.version,
      attachedAt: Date.now(),
      sessions: new Set(),
      sendDownlink: (c) => out.sendDownlink(c),
      kick: (deviceIntId: number, reason: string) =>
        send({ case: "kick", value: create(KickSchema, { deviceIntId: BigInt(deviceIntId), reason }) }),
      updatePolicies: (deviceIntId, policies) =>
        send({
          case: "policyUpdate",
          value: create(PolicyUpdateSchema, { deviceIntId: BigInt(deviceIntId), policies: policiesToProto(policies) }),
        }),
      updateSubscriptions: (deviceIntId, subscriptions) =>
        send({
          case: "subscriptionUpdate",
          value: create(SubscriptionUpdateSchema, {
            deviceIntId: BigInt(deviceIntId),
            subscriptions: subscriptionsToProto(subscriptions),
          }),
        }),
      updateRetained: (deviceIntId, retained) =>
        send({
          case: "retainedUpdate",
          value: create(RetainedUpdateSchema, {
            deviceIntId: BigInt(deviceIntId),
            retained: retainedToProto(retained),
          }),
        }),
      updateTenantLimits: (tenantId, maxUplinkRate) =>
        send({ case: "tenantLimits", value: create(TenantLimitsSchema, { tenantId, maxUplinkRate }) }),
    };
    uplinks = new UplinkIntake(deps, out, m.instanceId, fatal);
    const previous = [...deps.sessions.attach(link), ...deps.sessions.unpark(m.instanceId)];
    deps.adapterRows?.adapterAttached(link);
    send({
      case: "helloAck",
      value: {
        $typeName: "iot.registry.v1.HelloAck",
        nodeId: deps.nodeId,
        uplinkBatches: true,
        downlinkResultBatches: true,
        sessionOpenedBatches: true,
        streamAuthentication: true,
      },
    });
    log.info({ instance: m.instanceId, protocol: m.protocol, sessions: m.sessions.length }, "adapter attached");
    await sessionsReannounced(deps, link, m.sessions, previous, deliverQueued);
  };

  const onDownlinkResult = (r: DownlinkResult) => {
    const status = statusOf[r.status];
    // Not awaited, like an uplink's write: reports are committed in batches, which a wait here would defeat.
    if (status !== undefined)
      deps.commands
        .settle(Number(r.downlinkId), status, r.message, undefined, {
          resume: r.packetId > 0 ? { packetId: r.packetId, released: r.released } : undefined,
          multicast:
            r.multicastGateways > 0 ? { gateways: r.multicastGateways, covered: r.multicastCovered } : undefined,
        })
        .catch((err: unknown) => log.error({ err }, "downlink result not recorded"));
  };

  /**
   * Answers an AuthenticateCall on the stream as AuthenticateBatch would. Not awaited by the message chain: like
   * concurrent unary calls, a slow check holds up neither the stream's other messages nor other checks.
   */
  const onAuthenticate = (c: AuthenticateCall) => {
    const answer = (value: { responses: AuthenticateResponse[] } | { error: string }) =>
      out.send({ case: "authenticateAnswer", value: create(AuthenticateAnswerSchema, { id: c.id, ...value }) });
    authenticateAll(c.requests, deps).then(
      (responses) => answer({ responses }),
      (err: unknown) => {
        const malformed = err instanceof RegistryError && err.code === "FORM_INVALID";
        if (!malformed) log.error({ err }, "authenticate call failed");
        answer({ error: malformed ? (err as Error).message : "registry store unavailable" });
      },
    );
  };

  const handle = async (msg: AdapterMessage) => {
    const k = msg.kind;
    if (k.case === "hello") return onHello(k.value);
    if (!link || !uplinks) return fatal(grpc.status.FAILED_PRECONDITION, "first message must be Hello");
    switch (k.case) {
      case "uplink":
        return uplinks.onUplink(k.value);
      case "uplinkBatch":
        return uplinks.onBatch(k.value.uplinks);
      case "sessionOpened":
        return sessionOpened(deps, link, k.value, deliverQueued);
      case "sessionOpenedBatch":
        for (const opened of k.value.sessions) await sessionOpened(deps, link, opened, deliverQueued);
        return;
      case "sessionClosed":
        return sessionClosed(deps, link, k.value);
      case "sessionState": {
        const v = k.value;
        const s = deps.sessions.setSleeping(link.instanceId, v.sessionId, v.sleeping);
        if (!s) return;
        return deps.connectivity.record({
          kind: "state",
          deviceIntId: s.deviceIntId,
          sessionId: s.sessionId,
          ip: s.clientIp || null,
          keepAlive: s.keepAlive || null,
          at: Date.now(),
        });
      }
      case "loraCounters":
        return recordLoraCounters(
          deps.db,
          k.value.counters.map((c) => ({
            deviceIntId: Number(c.deviceIntId),
            fcntUp: c.fcntUp,
            fcntDown: c.fcntDown,
          })),
        );
      case "downlinkResult":
        return onDownlinkResult(k.value);
      case "downlinkResultBatch":
        for (const r of k.value.results) onDownlinkResult(r);
        return;
      case "authenticate":
        return onAuthenticate(k.value);
      case "mqttSession": {
        // Not awaited, like an uplink's write: queued in arrival order, so a session's end is written after its
        // subscriptions, in shared transactions.
        const v = k.value;
        const update = {
          sessionId: v.sessionId,
          deviceIntId: Number(v.deviceIntId),
          clientId: v.clientId,
          subscriptions: v.subscriptions.map(storedSubscriptionFromProto),
          expiryInterval: v.expiryInterval,
          ended: v.ended,
          atMs: Number(v.atMs),
        };
        writes
          .run((tx) => updateSession(tx, update))
          .catch((err: unknown) => log.error({ err }, "MQTT session state not stored"));
        return;
      }
      case "authenticationFailed": {
        // Not awaited: a connect log, written as an Authenticate refusal's would be (bounded per address).
        const v = k.value;
        const credentials = credentialsFromProto(v.credentials);
        if (!credentials) return;
        recordHandshakeFailure(deps.db, { protocol: v.protocol, credentials, clientIp: v.clientIp }, v.reason).catch(
          (err: unknown) => log.error({ err }, "failed authentication not recorded"),
        );
        return;
      }
      default:
        return;
    }
  };

  // Messages are handled in arrival order; an uplink only starts its (batched) write here.
  let chain = Promise.resolve();
  call.on("data", (msg: AdapterMessage) => {
    chain = chain
      .then(() => handle(msg))
      .catch((err: unknown) => {
        // A message that failed (a hello whose session lookups met a database outage) left the link half set up:
        // ending the stream makes the adapter connect again and replay, instead of waiting forever for its ack.
        log.error({ err }, "adapter message failed");
        fatal(grpc.status.UNAVAILABLE, `adapter message failed: ${(err as Error).message}`);
      });
  });
  /** `lost`: the stream broke (the adapter crashed or its host went away) rather than ended; logged as a warning. */
  const finish = (lost: boolean) => {
    if (out.closed) return;
    out.closed = true;
    if (!link) return;
    // The devices may still be connected to the adapter: wait for it to come back before calling them offline.
    const sessions = deps.sessions.detach(link);
    deps.adapterRows?.adapterDetached(link.instanceId);
    deps.sessions.park(
      link.instanceId,
      sessions,
      deps.sessionGraceMs,
      (expired) => {
        for (const s of expired) closeSession(deps, s, "adapter did not come back");
      },
      link,
    );
    const details = { instance: link.instanceId, sessions: sessions.length };
    if (lost) log.warn(details, "adapter stream lost; its sessions wait for it to come back");
    else log.info(details, "adapter detached");
  };
  call.on("end", () => {
    // A broken connection ends the stream too, and grpc-js may say so ('cancelled') just after: wait one turn to tell
    // a crashed adapter from one that closed its stream.
    setImmediate(() => {
      finish(call.cancelled);
      call.end();
    });
  });
  call.on("error", () => finish(true));
  call.on("cancelled", () => finish(true));
}
