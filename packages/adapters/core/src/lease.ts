/**
 * One device's session on a connectionless adapter (CoAP, HTTP, LoRaWAN, LwM2M): its keepAlive countdown and holds,
 * the checks of what it publishes, and the commands it is handed (to a consumer now, or into the device's inbox).
 * The leases of an adapter, and how a request finds its lease, are in device-leases.ts.
 */
import type { Logger } from "pino";
import { isAllowed, topicMatches } from "./policy.js";
import type {
  AuthFailureCode,
  Downlink,
  DownlinkOutcome,
  DeviceSession,
  RegistryClient,
  Uplink,
  UplinkResend,
  UplinkSettled,
} from "./registry-client.js";
import { filterProblem, publishTopicProblem } from "./topics.js";

/** Why a request was refused, as every protocol maps it to its own status. */
export type LeaseRefusal =
  | { readonly kind: "auth"; readonly code: AuthFailureCode; readonly message: string }
  | { readonly kind: "topic"; readonly message: string }
  | { readonly kind: "policy"; readonly message: string };

/** Hands a downlink to the device; resolves with what became of it. */
export type DownlinkConsumer = (downlink: Downlink, relativeTopic: string) => Promise<DownlinkOutcome>;

/** A command waiting in a device's inbox for a consumer (it outlives the device's sessions until it expires). */
export interface WaitingDownlink {
  readonly downlink: Downlink;
  readonly topic: string;
  readonly settle: (outcome: DownlinkOutcome) => void;
}

interface Consumer {
  readonly filter: string;
  /** Takes one command and is gone (a long-poll); otherwise it stays (an observation). */
  readonly once: boolean;
  readonly consume: DownlinkConsumer;
  /** Told when the lease closes (kick, expiry, shutdown) so the protocol can end the exchange. */
  readonly onClose: (reason: string) => void;
}

/** One device's session on a connectionless adapter. */
export class Lease {
  private holds = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly consumers = new Set<Consumer>();
  private closedReason: string | undefined;
  private readonly closeListeners: ((reason: string) => void)[] = [];
  /** This lease's own keepAlive, ms (an LwM2M registration's lifetime); undefined: the owner's. */
  private ownKeepAliveMs: number | undefined;

  private readonly inbox: WaitingDownlink[];

  /** When this process opened the lease (epoch ms): it has known the device since then. */
  readonly openedAt = Date.now();

  constructor(
    readonly session: DeviceSession,
    readonly clientIp: string,
    private readonly owner: LeaseOwner,
  ) {
    this.inbox = owner.inboxOf(session.device.deviceIntId);
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  /** Requests waiting on this lease's commands now (long polls, observations): a command goes to one at once. */
  get waiting(): number {
    return this.consumers.size;
  }

  /** The device made a request: the lease lives `keepAlive` seconds from now (unless held longer). */
  touch(): void {
    if (this.closed) return;
    if (this.holds > 0) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
    } else if (this.idleTimer !== undefined) {
      // Every request of a device touches its lease: the countdown restarts without a new timer each time.
      this.idleTimer.refresh();
    } else this.idleTimer = this.owner.idleTimer(this);
  }

  /** The keepAlive of this lease alone, ms: an LwM2M registration lives for its lifetime, not the adapter's default. */
  get keepAliveMs(): number {
    return this.ownKeepAliveMs ?? this.owner.keepAliveMs;
  }

  /** Sets this lease's keepAlive (seconds, > 0) and restarts its countdown from now. */
  setKeepAlive(seconds: number): void {
    this.ownKeepAliveMs = seconds * 1000;
    clearTimeout(this.idleTimer); // a countdown of the old length is not refreshed
    this.idleTimer = undefined;
    this.touch();
  }

  /** Calls `listener` once when the lease closes, whatever the reason (kick, expiry, the protocol's own close). */
  onClose(listener: (reason: string) => void): void {
    if (this.closed) listener(this.closedReason!);
    else this.closeListeners.push(listener);
  }

  /** Keeps the lease open until the returned release is called (then the keepAlive countdown starts). */
  hold(): () => void {
    this.holds++;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.touch();
    };
  }

  /**
   * Checks and sends an uplink; resolves after the registry's durable write.
   * Refusals resolve with the reason instead (nothing is sent).
   */
  async publish(
    topic: string,
    payload: Uint8Array,
    qos: number,
    metadata?: string,
    resend?: UplinkResend,
  ): Promise<LeaseRefusal | undefined> {
    const refused = this.publishRefusal(topic);
    if (refused) return refused;
    await this.owner.registry.publish(this.uplink(topic, payload, qos, metadata, resend));
    return undefined;
  }

  /**
   * `publish` for an adapter's hot path, without a promise: a refusal is answered at once (nothing sent); otherwise
   * the uplink is sent and `settled` is called once, never before this returns, as `RegistryClient.publishThen` says
   * (without an error after the registry's durable write).
   */
  publishThen(
    topic: string,
    payload: Uint8Array,
    qos: number,
    resend: UplinkResend | undefined,
    settled: UplinkSettled,
  ): LeaseRefusal | undefined {
    const refused = this.publishRefusal(topic);
    if (refused) return refused;
    this.owner.registry.publishThen(this.uplink(topic, payload, qos, undefined, resend), settled);
    return undefined;
  }

  /** Counts the request (touch) and checks the topic and the policies of a publish to it. */
  private publishRefusal(topic: string): LeaseRefusal | undefined {
    this.touch();
    const problem = publishTopicProblem(topic);
    if (problem) return { kind: "topic", message: problem };
    if (!isAllowed(this.session.policies, "publish", topic, this.owner.defaultAllow)) {
      this.owner.log.warn({ deviceId: this.session.device.deviceId, topic }, "publish dropped: denied by policy");
      return { kind: "policy", message: `publish to "${topic}" denied by policy` };
    }
    return undefined;
  }

  private uplink(
    topic: string,
    payload: Uint8Array,
    qos: number,
    metadata: string | undefined,
    resend: UplinkResend | undefined,
  ): Uplink {
    const { device } = this.session;
    return {
      sessionId: this.session.sessionId,
      tenantId: device.tenantId,
      deviceIntId: device.deviceIntId,
      topic,
      payload,
      qos,
      clientIp: this.clientIp,
      receivedAtMs: Date.now(),
      ...(metadata !== undefined ? { metadata } : {}),
      ...(resend !== undefined ? { resend } : {}),
    };
  }

  /**
   * Registers a consumer for downlinks on `filter` (relative) and hands it the
   * waiting ones that match (only the first when `once`). Answers a refusal
   * when the filter is bad or the policies deny subscribing to it, else the
   * function that removes it.
   */
  consume(
    filter: string,
    consume: DownlinkConsumer,
    onClose: (reason: string) => void,
    once = false,
  ): LeaseRefusal | (() => void) {
    const problem = filterProblem(filter);
    if (problem) return { kind: "topic", message: problem };
    if (!isAllowed(this.session.policies, "subscribe", filter, this.owner.defaultAllow)) {
      return { kind: "policy", message: `subscribing to "${filter}" denied by policy` };
    }
    const consumer: Consumer = { filter, once, consume, onClose };
    this.consumers.add(consumer);
    for (const w of [...this.inbox]) {
      if (!topicMatches(filter, w.topic) || !this.consumers.has(consumer)) continue;
      this.inbox.splice(this.inbox.indexOf(w), 1);
      this.handTo(consumer, w);
    }
    return () => {
      this.consumers.delete(consumer);
    };
  }

  /** A registry downlink for this device: to a matching consumer now, or into the inbox. */
  deliver(downlink: Downlink): Promise<DownlinkOutcome> {
    const topic = downlink.topic || this.session.device.defaultDownlinkTopic;
    if (!isAllowed(this.session.policies, "subscribe", topic, this.owner.defaultAllow)) {
      return Promise.resolve({ status: "FAILED", message: `topic "${topic}" is denied by the device's policies` });
    }
    return new Promise((settle) => {
      const waiting: WaitingDownlink = { downlink, topic, settle };
      const consumer = [...this.consumers].find((c) => topicMatches(c.filter, topic));
      if (consumer) return this.handTo(consumer, waiting);
      this.inbox.push(waiting);
      if (this.inbox.length > this.owner.inboxLimit)
        this.inbox.shift()!.settle({ status: "FAILED", message: "the device's inbox is full" });
      if (downlink.expiresAtMs > 0) {
        setTimeout(() => this.expire(waiting), Math.max(0, downlink.expiresAtMs - Date.now())).unref();
      }
    });
  }

  /**
   * Ends the lease: consumers are told, the registry hears the session closed; waiting commands stay for the device's
   * next session.
   */
  close(reason: string): void {
    if (this.closed) return;
    this.closedReason = reason;
    clearTimeout(this.idleTimer);
    for (const c of [...this.consumers]) c.onClose(reason);
    this.consumers.clear();
    this.owner.closed(this, reason);
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }

  private handTo(consumer: Consumer, waiting: WaitingDownlink): void {
    if (consumer.once) this.consumers.delete(consumer);
    consumer
      .consume(waiting.downlink, waiting.topic)
      .then(waiting.settle, (err: Error) => waiting.settle({ status: "FAILED", message: err.message }));
  }

  private expire(waiting: WaitingDownlink): void {
    const i = this.inbox.indexOf(waiting);
    if (i < 0) return;
    this.inbox.splice(i, 1);
    this.owner.forgetEmptyInbox(this.session.device.deviceIntId);
    waiting.settle({ status: "FAILED", message: this.owner.expiredMessage });
  }
}

/**
 * What a lease needs of the leases it belongs to (DeviceLeases): their settings, the device's inbox shared by
 * all its leases, the registry, and to be told when it closes. An interface so that the two files do not import
 * each other.
 */
export interface LeaseOwner {
  readonly registry: RegistryClient;
  readonly log: Logger;
  /** IOT_POLICY_DEFAULT is "allow". */
  readonly defaultAllow: boolean;
  /** Most commands kept waiting per device. */
  readonly inboxLimit: number;
  /** The keepAlive of leases without their own, ms. */
  readonly keepAliveMs: number;
  /** Why a waiting command that expired failed. */
  readonly expiredMessage: string;
  /** The waiting commands of a device (the same array for every lease of it). */
  inboxOf(deviceIntId: number): WaitingDownlink[];
  /** Drops a device's inbox once nothing waits in it. */
  forgetEmptyInbox(deviceIntId: number): void;
  /** Starts a lease's keepAlive countdown. */
  idleTimer(lease: Lease): NodeJS.Timeout;
  /** A lease ended: forget it and tell the registry. */
  closed(lease: Lease, reason: string): void;
}
