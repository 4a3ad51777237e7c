/**
 * What the registry client does with the registry's messages on its Connect stream: HelloAck (the link is up, and
 * what the registry takes), uplink acks, downlinks and their results, kicks, and the pushes of policies,
 * subscriptions and tenant limits. Kept apart from the client so that its lifecycle and what it sends read alone.
 */
import type { RegistryMessage } from "@iot/proto";
import type { Logger } from "pino";
import type { AdapterMetrics } from "./adapter-metrics.js";
import type { AuthenticateCalls } from "./authenticate-calls.js";
import { dispatchDownlink } from "./downlink-dispatch.js";
import { downlinkResultValue, fromDownlink, fromPolicies, fromRetained, fromSubscriptions } from "./grpc-convert.js";
import type { LiveSessions } from "./live-sessions.js";
import type { RegistryHandlers } from "./registry-client.js";
import type { RegistryLink } from "./registry-link.js";
import type { StreamOutbox } from "./stream-outbox.js";
import type { TenantRateLimiter } from "./tenant-rate-limiter.js";
import type { UplinkBuffer } from "./uplink-buffer.js";
import { applyUplinkAck } from "./uplink-outcomes.js";

/** The parts of the registry client the registry's messages act on. */
export interface RegistryMessageTargets {
  readonly link: RegistryLink;
  readonly outbox: StreamOutbox;
  readonly buffer: UplinkBuffer;
  readonly live: LiveSessions;
  readonly auths: AuthenticateCalls;
  /** Per-tenant uplink rate limits, set by TenantLimits pushes. */
  readonly rates: TenantRateLimiter;
  readonly metrics: AdapterMetrics;
  readonly log: Logger;
  /** The adapter's handlers now (set after the client is made, see RegistryClient.setHandlers). */
  readonly handlers: () => RegistryHandlers;
}

/** The registry's side of one client's stream: each message applied to the client's parts or handed to a handler. */
export class RegistryMessages {
  /** The registry of this stream said (HelloAck) that it answers AuthenticateCall on it. */
  private streamAuth = false;

  constructor(private readonly t: RegistryMessageTargets) {}

  /** Whether device checks may go on this stream (its registry said so in HelloAck). */
  get streamAuthentication(): boolean {
    return this.streamAuth;
  }

  /** A new stream: nothing is known of its registry until its HelloAck. */
  streamOpened(): void {
    this.streamAuth = false;
  }

  /** One message of the registry, in stream order; a handler's failure is logged, never thrown. */
  handle(m: RegistryMessage): void {
    const { t } = this;
    const k = m.kind;
    switch (k.case) {
      case "helloAck":
        t.outbox.accept(k.value);
        this.streamAuth = k.value.streamAuthentication;
        t.link.up(k.value.nodeId, { sessions: t.live.size, replayed: t.buffer.size });
        return;
      case "uplinkAck":
        applyUplinkAck(k.value, t.buffer, t.metrics, t.log);
        return;
      case "downlink":
        void this.runDownlink(k.value);
        return;
      case "downlinkBatch":
        for (const d of k.value.downlinks) void this.runDownlink(d);
        return;
      case "kick":
        this.safely("kick", () => t.handlers().kick?.(Number(k.value.deviceIntId), k.value.reason));
        return;
      case "policyUpdate": {
        const deviceIntId = Number(k.value.deviceIntId);
        const policies = fromPolicies(k.value.policies);
        t.live.applyPolicies(deviceIntId, policies);
        this.safely("policy update", () => t.handlers().policyUpdate?.(deviceIntId, policies));
        return;
      }
      case "subscriptionUpdate": {
        const deviceIntId = Number(k.value.deviceIntId);
        const subscriptions = fromSubscriptions(k.value.subscriptions);
        const previous = t.live.applySubscriptions(deviceIntId, subscriptions);
        this.safely("subscription update", () =>
          t.handlers().subscriptionUpdate?.(deviceIntId, subscriptions, previous),
        );
        return;
      }
      case "retainedUpdate": {
        const deviceIntId = Number(k.value.deviceIntId);
        const retained = fromRetained(k.value.retained);
        this.safely("retained update", () => t.handlers().retainedUpdate?.(deviceIntId, retained));
        return;
      }
      case "authenticateAnswer":
        t.auths.streamAnswers.settle(Number(k.value.id), k.value);
        return;
      case "tenantLimits":
        t.rates.setRate(k.value.tenantId, k.value.maxUplinkRate);
        t.log.info({ tenantId: k.value.tenantId, maxUplinkRate: k.value.maxUplinkRate }, "tenant uplink rate set");
        return;
      default:
        return;
    }
  }

  private async runDownlink(pb: Parameters<typeof fromDownlink>[0]): Promise<void> {
    const downlink = fromDownlink(pb);
    this.t.metrics.commandReceived();
    const outcome = await dispatchDownlink(this.t.handlers(), downlink);
    this.t.metrics.command(outcome.status.toLowerCase());
    this.t.outbox.result(downlinkResultValue(downlink.id, outcome));
  }

  private safely(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.t.log.error({ err }, `${what} handler failed`);
    }
  }
}
