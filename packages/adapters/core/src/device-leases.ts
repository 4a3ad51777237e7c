import type { Logger } from "pino";
import { isAllowed, topicMatches } from "./policy.js";
import type {
  AuthFailureCode,
  DeviceCredentials,
  DeviceSession,
  Downlink,
  DownlinkOutcome,
  ProtocolName,
  RegistryClient,
  RegistryHandlers,
  Uplink,
  UplinkResend,
  UplinkSettled,
} from "./registry-client.js";
import { filterProblem, publishTopicProblem } from "./topics.js";

/**
 * Sessions for protocols without a connection (CoAP, HTTP). A device's first
 * request with good credentials opens a session ("lease"); later requests with
 * the same credentials reuse it without asking the registry again (with
 * `onePerDevice`, requests with any form of the device's credentials share it). The lease
 * stays open while something holds it (a CoAP observation, an HTTP long-poll)
 * and for `keepAliveSeconds` after the device's last request; then it closes
 * and the registry marks the device offline. Kicks close it at once.
 *
 * Downlinks for a leased device go to a consumer whose filter matches (an
 * observation, a waiting poll); with none they wait in the device's inbox
 * until a consumer comes or the command expires — also across sessions: a
 * device that polls again after its session lapsed still gets them. A
 * command counts as DELIVERED only when a consumer says the device got it.
 */
export interface DeviceLeasesOptions {
  readonly registry: RegistryClient;
  readonly protocol: ProtocolName;
  readonly logger: Logger;
  /** Seconds a lease stays open after the device's last request when nothing holds it. */
  readonly keepAliveSeconds: number;
  /** IOT_POLICY_DEFAULT: the decision when no policy matches. */
  readonly policyDefault: "allow" | "deny";
  /** Most commands kept waiting per device (the oldest fails when full). Default 100. */
  readonly inboxLimit?: number;
  /** Why a lease that outlived its keepAlive closes, for the connect log (default "keepalive expired"). */
  readonly idleReason?: string;
  /** Why a waiting command that expired failed (default "expired before the device asked for it"). */
  readonly expiredMessage?: string;
  /**
   * One lease per device, whatever form of its credentials a request carries (CoAP's `c=` is optional): a form not
   * seen yet is checked by the registry once, then shares the device's open lease, so the device has one session,
   * one online log and one path for its commands. Default false: a new authentication opens a new lease, as a LoRa
   * device's new session (a new DevAddr) must replace its old one.
   */
  readonly onePerDevice?: boolean;
}

/** Why a request was refused, as every protocol maps it to its own status. */
export type LeaseRefusal =
  | { readonly kind: "auth"; readonly code: AuthFailureCode; readonly message: string }
  | { readonly kind: "topic"; readonly message: string }
  | { readonly kind: "policy"; readonly message: string };

/** Hands a downlink to the device; resolves with what became of it. */
export type DownlinkConsumer = (downlink: Downlink, relativeTopic: string) => Promise<DownlinkOutcome>;

interface Waiting {
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

  private readonly inbox: Waiting[];

  /** When this process opened the lease (epoch ms): it has known the device since then. */
  readonly openedAt = Date.now();

  constructor(
    readonly session: DeviceSession,
    readonly clientIp: string,
    private readonly owner: DeviceLeases,
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
      const waiting: Waiting = { downlink, topic, settle };
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

  private handTo(consumer: Consumer, waiting: Waiting): void {
    if (consumer.once) this.consumers.delete(consumer);
    consumer
      .consume(waiting.downlink, waiting.topic)
      .then(waiting.settle, (err: Error) => waiting.settle({ status: "FAILED", message: err.message }));
  }

  private expire(waiting: Waiting): void {
    const i = this.inbox.indexOf(waiting);
    if (i < 0) return;
    this.inbox.splice(i, 1);
    this.owner.forgetEmptyInbox(this.session.device.deviceIntId);
    waiting.settle({ status: "FAILED", message: this.owner.expiredMessage });
  }
}

/** The leases of one adapter instance, and the registry handlers that reach them. */
export class DeviceLeases {
  readonly registry: RegistryClient;
  readonly log: Logger;
  readonly defaultAllow: boolean;
  readonly inboxLimit: number;
  /** @internal The keepAlive of leases without their own, ms. */
  readonly keepAliveMs: number;
  /** @internal */
  readonly expiredMessage: string;
  private readonly idleReason: string;
  private readonly protocol: ProtocolName;
  private readonly onePerDevice: boolean;
  private readonly byCredentials = new Map<string, Lease>();
  /**
   * Each open lease's keys in `byCredentials` (several with `onePerDevice`). Finding them by scanning that Map made
   * every close cost a pass over all open leases: closing 20,000 held the event loop 1.3–2.3 s (docs/performance.md,
   * "Costs that grow with the fleet").
   */
  private readonly keysOf = new Map<Lease, string[]>();
  private readonly byDevice = new Map<number, Set<Lease>>();
  /** Commands waiting for a consumer, per device; they outlive sessions until they expire. */
  private readonly inboxes = new Map<number, Waiting[]>();
  /** Authentications in progress, so concurrent first requests share one session. */
  private readonly opening = new Map<string, Promise<Lease | LeaseRefusal>>();

  constructor(options: DeviceLeasesOptions) {
    this.registry = options.registry;
    this.log = options.logger;
    this.protocol = options.protocol;
    this.onePerDevice = options.onePerDevice ?? false;
    this.defaultAllow = options.policyDefault === "allow";
    this.inboxLimit = options.inboxLimit ?? 100;
    this.keepAliveMs = options.keepAliveSeconds * 1000;
    this.idleReason = options.idleReason ?? "keepalive expired";
    this.expiredMessage = options.expiredMessage ?? "expired before the device asked for it";
  }

  /** The handlers to give the registry client (the adapter may add its own around them). */
  handlers(): RegistryHandlers {
    return {
      downlink: (d) => this.downlink(d),
      kick: (deviceIntId, reason) => {
        for (const lease of [...(this.byDevice.get(deviceIntId) ?? [])]) lease.close(`kicked: ${reason}`);
      },
      policyUpdate: (deviceIntId) => this.log.info({ deviceIntId }, "device policies updated"),
    };
  }

  /**
   * The lease for these credentials: the open one, or a new session when the
   * registry accepts them. Every failure is a refusal (the registry logs it). A new lease gets `keepAliveSeconds`
   * as its own keepAlive when given (reported to the registry as the session's).
   */
  async acquire(
    credentials: DeviceCredentials,
    clientIp: string,
    keepAliveSeconds?: number,
  ): Promise<Lease | LeaseRefusal> {
    const key = JSON.stringify(credentials);
    const open = this.openOf(key);
    if (open) return open;
    const pending = this.opening.get(key);
    if (pending) return pending;
    const opening = this.open(key, credentials, clientIp, keepAliveSeconds).finally(() => this.opening.delete(key));
    this.opening.set(key, opening);
    return opening;
  }

  /**
   * The open lease of these credentials, touched (what `acquire` answers when there is one), without a promise:
   * undefined when none is open, and `acquire` opens one.
   */
  openLease(credentials: DeviceCredentials): Lease | undefined {
    return this.openOf(JSON.stringify(credentials));
  }

  private openOf(key: string): Lease | undefined {
    const open = this.byCredentials.get(key);
    if (!open || open.closed) return undefined;
    open.touch();
    return open;
  }

  /** Closes every lease (the adapter is stopping). */
  closeAll(reason: string): void {
    for (const lease of [...this.keysOf.keys()]) lease.close(reason);
  }

  /** Leases open now. */
  get size(): number {
    return this.keysOf.size;
  }

  /** @internal The waiting commands of a device (the same array for every lease of it). */
  inboxOf(deviceIntId: number): Waiting[] {
    let inbox = this.inboxes.get(deviceIntId);
    if (!inbox) this.inboxes.set(deviceIntId, (inbox = []));
    return inbox;
  }

  /** @internal Drops a device's inbox once nothing waits in it. */
  forgetEmptyInbox(deviceIntId: number): void {
    if (this.inboxes.get(deviceIntId)?.length === 0 && !this.byDevice.has(deviceIntId))
      this.inboxes.delete(deviceIntId);
  }

  /** @internal A lease's keepAlive countdown. */
  idleTimer(lease: Lease): NodeJS.Timeout {
    const timer = setTimeout(() => lease.close(this.idleReason), lease.keepAliveMs);
    timer.unref();
    return timer;
  }

  /** @internal A lease ended: forget it and tell the registry. */
  closed(lease: Lease, reason: string): void {
    for (const key of this.keysOf.get(lease) ?? [])
      if (this.byCredentials.get(key) === lease) this.byCredentials.delete(key);
    this.keysOf.delete(lease);
    const set = this.byDevice.get(lease.session.device.deviceIntId);
    set?.delete(lease);
    if (set?.size === 0) this.byDevice.delete(lease.session.device.deviceIntId);
    this.forgetEmptyInbox(lease.session.device.deviceIntId);
    this.registry.sessionClosed(lease.session, reason);
  }

  private async open(
    key: string,
    credentials: DeviceCredentials,
    clientIp: string,
    keepAliveSeconds: number | undefined,
  ): Promise<Lease | LeaseRefusal> {
    const outcome = await this.registry.authenticate(this.protocol, credentials, clientIp);
    if (!outcome.ok) return { kind: "auth", code: outcome.code, message: outcome.message };
    const id = outcome.session.device.deviceIntId;
    const shared = this.onePerDevice ? [...(this.byDevice.get(id) ?? [])].at(-1) : undefined;
    if (shared) {
      // The registry's new session is left unopened (it forgets it, as any it admitted that never opened).
      this.byCredentials.set(key, shared);
      this.keysOf.get(shared)!.push(key);
      shared.touch();
      return shared;
    }
    const lease = new Lease(outcome.session, clientIp, this);
    if (keepAliveSeconds !== undefined) lease.setKeepAlive(keepAliveSeconds);
    this.byCredentials.set(key, lease);
    this.keysOf.set(lease, [key]);
    this.byDevice.set(id, (this.byDevice.get(id) ?? new Set()).add(lease));
    this.registry.sessionOpened(outcome.session, { clientIp, keepAlive: Math.round(lease.keepAliveMs / 1000) });
    lease.touch();
    return lease;
  }

  private downlink(d: Downlink): Promise<DownlinkOutcome> {
    const lease = [...(this.byDevice.get(d.deviceIntId) ?? [])].at(-1);
    if (!lease) return Promise.resolve({ status: "FAILED", message: "device is not connected to this adapter" });
    return lease.deliver(d);
  }
}
