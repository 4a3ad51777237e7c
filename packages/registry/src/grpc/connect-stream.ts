import {
  AuthenticateAnswerSchema,
  BATCH_MAX_BYTES,
  BATCH_MAX_ITEMS,
  create,
  DownlinkBatchSchema,
  DownlinkSchema,
  DownlinkStatus,
  KickSchema,
  Protocol,
  PolicyUpdateSchema,
  RegistryMessageSchema,
  SubscriptionUpdateSchema,
  TenantLimitsSchema,
  grpc,
  type AdapterMessage,
  type AuthenticateCall,
  type AuthenticateResponse,
  type Downlink,
  type DownlinkResult,
  type RegistryMessage,
  type SessionOpened,
  type Uplink,
  type UplinkRejected,
} from "@iot/proto";
import { GatewayRelay } from "../router/gateway-relay.js";
import { policiesToProto, subscriptionsToProto } from "./convert.js";
import type { Logger } from "pino";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.js";
import type { UplinkWriter } from "../store/store.js";
import { sessionRevocations } from "../domain/session-revocations.js";
import { tenantLimits } from "../domain/tenants.js";
import type { ConnectivityWriter } from "../sessions/connectivity-writer.js";
import type { DataPipeline } from "../pipeline/data-pipeline.js";
import { PUBLISH_STATUS, type CommandRouter, type PublishStatus } from "../router/commands.js";
import type { AdapterLink, DownlinkCommand, LiveSession, SessionTable } from "../sessions/session-table.js";
import type { LiveUpdates } from "../sessions/live-updates.js";
import type { ModbusConfigPush } from "../modbus/config-push.js";
import { RegistryError } from "../errors.js";
import { recordLoraCounters } from "../lora/lora-sessions.js";
import type { SessionRows } from "../cluster/session-rows.js";
import { protocolLabel, uplinksTotal } from "../ops/registry-metrics.js";
import { uplinkMsgKey } from "./uplink-key.js";
import { authenticateAll } from "./authenticate.js";

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
  /** Several nodes: records which adapter streams this node holds. */
  adapterRows?: Pick<SessionRows, "adapterAttached" | "adapterDetached" | "tenantConnectionsElsewhere"> | undefined;
}

type Call = grpc.ServerDuplexStream<AdapterMessage, RegistryMessage>;

const statusOf: Partial<Record<DownlinkStatus, PublishStatus>> = {
  [DownlinkStatus.DELIVERED]: PUBLISH_STATUS.delivered,
  [DownlinkStatus.SENT]: PUBLISH_STATUS.sent,
  [DownlinkStatus.FAILED]: PUBLISH_STATUS.failed,
  [DownlinkStatus.QUEUED]: PUBLISH_STATUS.issued,
};

const toSession = (s: SessionOpened): LiveSession => ({
  sessionId: s.sessionId,
  deviceIntId: Number(s.deviceIntId),
  tenantId: s.tenantId,
  clientIp: s.clientIp,
  keepAlive: s.keepAlive,
  openedAt: Number(s.openedAtMs) || Date.now(),
  credentialStamp: s.credentialStamp,
  sleeping: s.sleeping,
});

/** A session ended: offline connect log; the device stays online only while it holds another session. */
function closeSession(deps: ConnectDeps, s: LiveSession, reason: string, at = Date.now()): void {
  deps.connectivity.record({
    kind: "closed",
    deviceIntId: s.deviceIntId,
    sessionId: s.sessionId,
    ip: s.clientIp || null,
    keepAlive: s.keepAlive || null,
    at,
    reason,
  });
}

/** A session came up (or was re-announced): online connect log and state. */
function openSession(deps: ConnectDeps, s: LiveSession, kind: "opened" | "announced", instanceId: string): void {
  deps.connectivity.record({
    kind,
    instanceId,
    deviceIntId: s.deviceIntId,
    sessionId: s.sessionId,
    ip: s.clientIp,
    keepAlive: s.keepAlive,
    at: s.openedAt,
  });
}

/**
 * Serves one adapter instance's Connect stream: Hello first, then session
 * events, uplinks (acked in batches after their durable write), and downlink
 * results; downlinks and kicks go the other way through the AdapterLink.
 */
export function serveConnect(call: Call, deps: ConnectDeps): void {
  const log = deps.logger;
  let link: (AdapterLink & { sessions: Set<string> }) | undefined;
  let pendingAcks: bigint[] = [];
  let pendingRejects: UplinkRejected[] = [];
  let ackScheduled = false;
  let closed = false;

  const write = (kind: RegistryMessage["kind"]) => {
    if (!closed) call.write(create(RegistryMessageSchema, { kind }));
  };
  /** Stored uplinks by outcome since the last flushAcks, counted there: one counter inc per outcome, not per uplink. */
  const storedCounts = new Map<string, number>();
  /**
   * Downlinks for an adapter that takes DownlinkBatch (its Hello said so) wait for the end of the current turn of
   * the event loop's synchronous work: a commit's commands, a group's members or a session's queued commands go out
   * as one stream message, without waiting for anything else.
   */
  let takesDownlinkBatches = false;
  let downlinks: Downlink[] = [];
  let downlinkBytes = 0;
  let downlinkFlushQueued = false;
  const flushDownlinks = () => {
    const batch = downlinks;
    if (batch.length === 0) return;
    downlinks = [];
    downlinkBytes = 0;
    // A lone downlink goes as a plain Downlink: one of the largest size fits a stream message only without the
    // batch's envelope.
    if (batch.length === 1) write({ case: "downlink", value: batch[0]! });
    else write({ case: "downlinkBatch", value: create(DownlinkBatchSchema, { downlinks: batch }) });
  };
  /** Writes after the downlinks queued before it (order matters: a command, then its device's kick). */
  const send = (kind: RegistryMessage["kind"]) => {
    if (downlinks.length > 0) flushDownlinks();
    write(kind);
  };

  const sendDownlink = (c: DownlinkCommand) => {
    const downlink = create(DownlinkSchema, {
      ...c,
      id: BigInt(c.id),
      deviceIntId: BigInt(c.deviceIntId),
      expiresAtMs: BigInt(c.expiresAt),
    });
    if (!takesDownlinkBatches) return send({ case: "downlink", value: downlink });
    downlinks.push(downlink);
    downlinkBytes += c.payload.byteLength + c.topic.length;
    if (downlinks.length >= BATCH_MAX_ITEMS || downlinkBytes >= BATCH_MAX_BYTES) flushDownlinks();
    else if (!downlinkFlushQueued) {
      downlinkFlushQueued = true;
      queueMicrotask(() => {
        downlinkFlushQueued = false;
        flushDownlinks();
      });
    }
  };
  const flushAcks = () => {
    ackScheduled = false;
    for (const [outcome, n] of storedCounts)
      uplinksTotal().inc({ protocol: protocolLabel(link?.protocol ?? 0), outcome }, n);
    storedCounts.clear();
    if (pendingAcks.length === 0 && pendingRejects.length === 0) return;
    const [seqs, rejected] = [pendingAcks, pendingRejects];
    pendingAcks = [];
    pendingRejects = [];
    send({ case: "uplinkAck", value: { $typeName: "iot.registry.v1.UplinkAck", seqs, rejected } });
  };
  const fatal = (code: grpc.status, details: string) => {
    if (closed) return;
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

  const onHello = async (m: Extract<AdapterMessage["kind"], { case: "hello" }>["value"]) => {
    if (link) return fatal(grpc.status.FAILED_PRECONDITION, "second Hello on one stream");
    takesDownlinkBatches = m.downlinkBatches;
    link = {
      instanceId: m.instanceId,
      protocol: m.protocol,
      version: m.version,
      attachedAt: Date.now(),
      sessions: new Set(),
      sendDownlink,
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
      updateTenantLimits: (tenantId, maxUplinkRate) =>
        send({ case: "tenantLimits", value: create(TenantLimitsSchema, { tenantId, maxUplinkRate }) }),
    };
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
    // Sessions this instance held before its stream dropped but no longer lists ended meanwhile.
    const announced = m.sessions.map(toSession);
    const alive = new Set(announced.map((s) => s.sessionId));
    for (const gone of previous.filter((s) => !alive.has(s.sessionId)))
      closeSession(deps, gone, "session ended while the adapter was away");
    // What changed while the link was down applies now: revoked sessions are kicked before any replayed uplink
    // of theirs is handled, the others get the device's current policies and proxy subscriptions.
    const revoked = await sessionRevocations(deps.db, announced);
    for (const s of announced) {
      deps.sessions.open(link.instanceId, s);
      openSession(deps, s, "announced", link.instanceId);
    }
    const kept = new Set<number>();
    for (const s of announced) {
      const reason = revoked.get(s.sessionId);
      if (reason) deps.sessions.kick(s.deviceIntId, reason);
      else kept.add(s.deviceIntId);
    }
    for (const id of kept) {
      if (link.protocol === (Protocol.MODBUS as number)) await deps.modbusConfig.sessionOpened(id, "announced");
      deliverQueued(id);
    }
    void deps.live
      .sessionsOpened([...kept], new Set(["policies", "subscriptions"]))
      .catch((err: unknown) => log.error({ err }, "push to re-announced sessions failed"));
    if (revoked.size > 0) log.info({ instance: m.instanceId, revoked: revoked.size }, "re-announced sessions revoked");
    // A tenant's uplink rate may have changed while the link was down: its push was missed, so it is sent again.
    for (const tenantId of new Set(announced.map((s) => s.tenantId)))
      link.updateTenantLimits(tenantId, (await tenantLimits(deps.db, tenantId)).maxUplinkRate);
  };

  const countUplink = (outcome: string) =>
    uplinksTotal().inc({ protocol: protocolLabel(link?.protocol ?? 0), outcome });
  const ack = (seq: bigint, rejected?: string) => {
    if (rejected === undefined) pendingAcks.push(seq);
    else {
      countUplink("rejected");
      pendingRejects.push({ $typeName: "iot.registry.v1.UplinkRejected", seq, reason: rejected });
    }
    if (!ackScheduled) {
      ackScheduled = true;
      setImmediate(flushAcks);
    }
  };

  const store = (u: Uplink, target: { deviceIntId: number; gatewayIntId: number | null; topic: string }) => {
    const record = {
      msgKey: uplinkMsgKey(link!.instanceId, u.seq, target.deviceIntId, u.metadata),
      tenantId: u.tenantId,
      deviceIntId: target.deviceIntId,
      gatewayIntId: target.gatewayIntId ?? (u.gatewayDeviceIntId ? Number(u.gatewayDeviceIntId) : null),
      topic: target.topic,
      payload: u.payload,
      ip: u.clientIp || null,
      qos: u.qos,
      msgTime: Number(u.receivedAtMs) || Date.now(),
      metadata: u.metadata || null,
      resendId: u.resendId || null,
      maybeResend: u.maybeResend,
    };
    // One closure per uplink, called once (no promise and then/catch closures per uplink).
    deps.uplinks.writeThen(record, (error, outcome) => {
      if (error !== undefined) {
        // The write failed: nothing was acked. Ending the stream makes the adapter reconnect and replay.
        countUplink("failed");
        return fatal(grpc.status.UNAVAILABLE, `uplink store failed: ${error.message}`);
      }
      storedCounts.set(outcome!, (storedCounts.get(outcome!) ?? 0) + 1);
      ack(u.seq);
      deps.pipeline.wake();
    });
  };

  /**
   * Why an uplink's session may no longer store anything: it was revoked, or — for a session this node no longer
   * knows, as when an adapter replays uplinks of a session that ended while its link was down — its device was
   * deleted or blocked meanwhile (looked up once per such session).
   */
  const unknownVerdicts = new Map<string, Promise<string | undefined>>();
  const refusal = (u: Uplink): string | undefined | Promise<string | undefined> => {
    const revoked = deps.sessions.revokedReason(u.sessionId);
    if (revoked) return revoked;
    if (deps.sessions.knows(u.sessionId)) return undefined;
    let verdict = unknownVerdicts.get(u.sessionId);
    if (!verdict) {
      if (unknownVerdicts.size >= 10_000) unknownVerdicts.clear();
      const held = { sessionId: u.sessionId, deviceIntId: Number(u.deviceIntId), credentialStamp: "" };
      verdict = sessionRevocations(deps.db, [held]).then((r) => r.get(u.sessionId));
      unknownVerdicts.set(u.sessionId, verdict);
    }
    return verdict;
  };

  /** Handles one uplink; a promise only when it had to look something up (the common case stays synchronous). */
  const onUplink = (u: Uplink): void | Promise<void> => {
    const refused = refusal(u);
    if (refused instanceof Promise) return refused.then((r) => admitted(u, r));
    return admitted(u, refused);
  };
  const admitted = (u: Uplink, refused: string | undefined): void | Promise<void> => {
    if (refused) return ack(u.seq, `session revoked: ${refused}`);
    const own = { deviceIntId: Number(u.deviceIntId), gatewayIntId: null, topic: u.topic };
    // Only relay-shaped topics need a lookup; everything else is written at once.
    if (!GatewayRelay.isRelayTopic(u.topic)) return store(u, own);
    return deps.relay
      .resolve(own.deviceIntId, u.topic)
      .then((target) => ("rejected" in target ? ack(u.seq, target.rejected) : store(u, target)));
  };
  /** A batch's uplinks in order, each as if it came alone. */
  const onUplinkBatch = async (uplinks: Uplink[]) => {
    for (const u of uplinks) {
      const pending = onUplink(u);
      if (pending) await pending;
    }
  };

  const onDownlinkResult = (r: DownlinkResult) => {
    const status = statusOf[r.status];
    // Not awaited, like an uplink's write: reports are committed in batches, which a wait here would defeat.
    if (status !== undefined)
      deps.commands
        .settle(Number(r.downlinkId), status, r.message)
        .catch((err: unknown) => log.error({ err }, "downlink result not recorded"));
  };

  /** A session an adapter opened: its device goes online and gets its queued commands. */
  const onSessionOpened = async (from: AdapterLink, opened: SessionOpened) => {
    const s = toSession(opened);
    deps.sessions.open(from.instanceId, s);
    openSession(deps, s, "opened", from.instanceId);
    // A revocation or change made between its authentication and now must not be missed; a session this node
    // did not admit (it restarted meanwhile) is checked against the records first.
    const missed = deps.sessions.takePending(s.sessionId);
    const revoked = missed ? missed.revoked : (await sessionRevocations(deps.db, [s])).get(s.sessionId);
    if (revoked) return deps.sessions.kick(s.deviceIntId, revoked);
    if (missed && missed.stale.size > 0)
      void deps.live
        .sessionsOpened([s.deviceIntId], missed.stale)
        .catch((err: unknown) => log.error({ err }, "push to a new session failed"));
    // A Modbus gateway's configuration goes before its queued commands (its slaves' writes need it).
    if (from.protocol === (Protocol.MODBUS as number)) await deps.modbusConfig.sessionOpened(s.deviceIntId, "opened");
    return deliverQueued(s.deviceIntId);
  };

  /**
   * Answers an AuthenticateCall on the stream as AuthenticateBatch would. Not awaited by the message chain: like
   * concurrent unary calls, a slow check holds up neither the stream's other messages nor other checks.
   */
  const onAuthenticate = (c: AuthenticateCall) => {
    const answer = (value: { responses: AuthenticateResponse[] } | { error: string }) =>
      send({ case: "authenticateAnswer", value: create(AuthenticateAnswerSchema, { id: c.id, ...value }) });
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
    if (!link) return fatal(grpc.status.FAILED_PRECONDITION, "first message must be Hello");
    switch (k.case) {
      case "uplink":
        return onUplink(k.value);
      case "uplinkBatch":
        return onUplinkBatch(k.value.uplinks);
      case "sessionOpened":
        return onSessionOpened(link, k.value);
      case "sessionOpenedBatch":
        for (const opened of k.value.sessions) await onSessionOpened(link, opened);
        return;
      case "sessionClosed": {
        const v = k.value;
        // An unknown session (e.g. opened before this node restarted) still closes its device.
        const session = deps.sessions.close(link.instanceId, v.sessionId) ?? {
          sessionId: v.sessionId,
          deviceIntId: Number(v.deviceIntId),
          tenantId: v.tenantId,
          clientIp: "",
          keepAlive: 0,
          openedAt: 0,
          credentialStamp: "",
        };
        return closeSession(deps, session, k.value.reason, Number(k.value.closedAtMs) || Date.now());
      }
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
    if (closed) return;
    closed = true;
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
