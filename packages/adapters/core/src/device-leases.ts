import type { Logger } from "pino";
import { Lease, type LeaseOwner, type LeaseRefusal, type WaitingDownlink } from "./lease.js";
import type {
  DeviceCredentials,
  Downlink,
  DownlinkOutcome,
  ProtocolName,
  RegistryClient,
  RegistryHandlers,
} from "./registry-client.js";

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

/** The leases of one adapter instance, and the registry handlers that reach them. */
export class DeviceLeases implements LeaseOwner {
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
  private readonly inboxes = new Map<number, WaitingDownlink[]>();
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
  inboxOf(deviceIntId: number): WaitingDownlink[] {
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
