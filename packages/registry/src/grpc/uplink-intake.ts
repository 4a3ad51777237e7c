/**
 * One adapter stream's uplinks, in arrival order: refused when their session was revoked (or, for a session this
 * node does not know, when its device was deleted or blocked meanwhile), resolved to the child device when a gateway
 * relays them, then written by the batched uplink writer and acked once durable. The common case stays synchronous:
 * no promise per uplink.
 */
import { grpc, type Uplink } from "@iot/proto";
import { GatewayRelay } from "../router/gateway-relay.js";
import { sessionRevocations } from "../domain/session-revocations.js";
import type { AdapterOutbox } from "./adapter-outbox.js";
import type { ConnectDeps } from "./connect-stream.js";
import { uplinkMsgKey } from "./uplink-key.js";
import { uplinkAnswerKey } from "../router/command-properties.js";
import { retainedUplinkProperties, writeRetained } from "../domain/retained.js";

/** Most sessions unknown to this node whose verdict is remembered (all forgotten past it). */
const MAX_UNKNOWN_VERDICTS = 10_000;

/** The uplinks of one adapter instance's stream. */
export class UplinkIntake {
  /** Retained uplinks' writes, one after another in arrival order, so the last one a topic gets is its value. */
  private retainedWrites: Promise<void> = Promise.resolve();
  /** Verdicts on sessions this node does not know, looked up once per session. */
  private readonly unknownVerdicts = new Map<string, Promise<string | undefined>>();

  /**
   * @param fatal ends the stream with this status (a failed write: nothing was acked, the adapter replays).
   */
  constructor(
    private readonly deps: Pick<ConnectDeps, "db" | "uplinks" | "sessions" | "relay" | "pipeline" | "live" | "logger">,
    private readonly out: AdapterOutbox,
    private readonly instanceId: string,
    private readonly fatal: (code: grpc.status, details: string) => void,
  ) {}

  /** Handles one uplink; a promise only when it had to look something up. */
  readonly onUplink = (u: Uplink): void | Promise<void> => {
    const refused = this.refusal(u);
    if (refused instanceof Promise) return refused.then((r) => this.admitted(u, r));
    return this.admitted(u, refused);
  };

  /** A batch's uplinks in order, each as if it came alone. */
  async onBatch(uplinks: readonly Uplink[]): Promise<void> {
    for (const u of uplinks) {
      const pending = this.onUplink(u);
      if (pending) await pending;
    }
  }

  /**
   * Why an uplink's session may no longer store anything: it was revoked, or — for a session this node no longer
   * knows, as when an adapter replays uplinks of a session that ended while its link was down — its device was
   * deleted or blocked meanwhile (looked up once per such session).
   */
  private refusal(u: Uplink): string | undefined | Promise<string | undefined> {
    const revoked = this.deps.sessions.revokedReason(u.sessionId);
    if (revoked) return revoked;
    if (this.deps.sessions.knows(u.sessionId)) return undefined;
    let verdict = this.unknownVerdicts.get(u.sessionId);
    if (!verdict) {
      if (this.unknownVerdicts.size >= MAX_UNKNOWN_VERDICTS) this.unknownVerdicts.clear();
      const held = { sessionId: u.sessionId, deviceIntId: Number(u.deviceIntId), credentialStamp: "" };
      verdict = sessionRevocations(this.deps.db, [held]).then((r) => r.get(u.sessionId));
      this.unknownVerdicts.set(u.sessionId, verdict);
    }
    return verdict;
  }

  private admitted(u: Uplink, refused: string | undefined): void | Promise<void> {
    if (refused) return this.out.ack(u.seq, `session revoked: ${refused}`);
    const own = { deviceIntId: Number(u.deviceIntId), gatewayIntId: null, topic: u.topic };
    // Only relay-shaped topics need a lookup; everything else is written at once.
    if (!GatewayRelay.isRelayTopic(u.topic)) return this.store(u, own);
    return this.deps.relay
      .resolve(own.deviceIntId, u.topic)
      .then((target) => ("rejected" in target ? this.out.ack(u.seq, target.rejected) : this.store(u, target)));
  }

  private store(u: Uplink, target: { deviceIntId: number; gatewayIntId: number | null; topic: string }): void {
    const record = {
      msgKey: uplinkMsgKey(this.instanceId, u.seq, target.deviceIntId, u.metadata),
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
      answerKey: uplinkAnswerKey(target.topic, u.metadata) ?? null,
    };
    // One closure per uplink, called once (no promise and then/catch closures per uplink).
    this.deps.uplinks.writeThen(record, (error, outcome) => {
      if (error !== undefined) {
        // The write failed: nothing was acked. Ending the stream makes the adapter reconnect and replay.
        this.out.countUplink("failed");
        return this.fatal(grpc.status.UNAVAILABLE, `uplink store failed: ${error.message}`);
      }
      this.out.stored(outcome!);
      this.deps.pipeline.wake();
      if (u.retain) this.keepRetained(u, target);
      else this.out.ack(u.seq);
    });
  }

  /**
   * A retained uplink (MQTT RETAIN=1) becomes its topic's last reported value (an empty payload clears it), pushed to
   * the device's live sessions; acked once written, so the device's REST view and next SUBSCRIBE already show it. A
   * failed write is logged and the uplink acked anyway: the message itself is stored.
   */
  private keepRetained(u: Uplink, target: { deviceIntId: number; topic: string }): void {
    const write = {
      tenantId: u.tenantId,
      deviceIntId: target.deviceIntId,
      direction: "uplink" as const,
      topic: target.topic,
      payload: u.payload,
      qos: u.qos,
      properties: retainedUplinkProperties(u.metadata),
    };
    this.retainedWrites = this.retainedWrites
      .then(() => writeRetained(this.deps.db, write, Number(u.receivedAtMs) || Date.now()))
      .then(
        () => this.deps.live.retainedChanged([target.deviceIntId]),
        (err: unknown) => this.deps.logger.error({ err, deviceIntId: target.deviceIntId }, "retained uplink not kept"),
      )
      .catch((err: unknown) => this.deps.logger.error({ err }, "retained uplink not pushed"))
      .finally(() => this.out.ack(u.seq));
  }
}
