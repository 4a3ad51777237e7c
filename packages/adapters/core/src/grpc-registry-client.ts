/**
 * The registry client of an adapter process over gRPC: its lifecycle (start, close and drain), the Connect stream's
 * link (Hello with every live session, replay of unacknowledged uplinks, reconnect with backoff across the nodes)
 * and the registry's messages on it (acks, downlinks, kicks, pushes). What goes out on the stream is batched by
 * StreamOutbox, device checks by AuthenticateCalls, the other unary calls are in registry-grpc-calls.ts.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { create, LoraActivateRequestSchema, type RegistryMessage } from "@iot/proto";
import type { Logger } from "pino";
import { adapterMetrics, type AdapterMetrics } from "./adapter-metrics.js";
import type { BackoffOptions } from "@iot/config";
import { AuthenticateCalls } from "./authenticate-calls.js";
import { RegistryLink } from "./registry-link.js";
import { DEFAULT_AUTH_QUEUE_LIMIT, type AdapterConfig } from "./config.js";
import { dispatchDownlink } from "./downlink-dispatch.js";
import { AdapterError } from "./errors.js";
import {
  downlinkResultValue,
  fromDownlink,
  fromPolicies,
  fromSubscriptions,
  helloMessage,
  sessionClosedMessage,
  sessionStateMessage,
  loraCountersMessage,
  toAuthenticateRequest,
  toListenerCertificateRequest,
  uplinkMessage,
} from "./grpc-convert.js";
import { LiveSessions } from "./live-sessions.js";
import { issueListenerCertificate, loraActivate } from "./registry-grpc-calls.js";
import { StreamOutbox } from "./stream-outbox.js";
import { TenantRateLimiter } from "./tenant-rate-limiter.js";
import type {
  AuthOutcome,
  DeviceCredentials,
  DeviceSession,
  GiveUpSignal,
  ListenerCertificate,
  LoraActivateResult,
  LoraCounterReport,
  LoraSessionInfo,
  ProtocolName,
  RegistryClient,
  RegistryHandlers,
  RegistryLinkState,
  SessionInfo,
  Uplink,
  UplinkSettled,
} from "./registry-client.js";
import { refuseUplink, UplinkBuffer, uplinkPromise } from "./uplink-buffer.js";
import { applyUplinkAck, uplinkOutcome } from "./uplink-outcomes.js";

/** Settings of the gRPC registry client; times in ms. */
export interface GrpcRegistryClientOptions {
  /**
   * The central node's gRPC address, `host:port` (an `https://` prefix selects TLS), or several nodes over one
   * database: the client uses one at a time and moves to the next when its stream fails (see RegistryEndpoints).
   */
  readonly address: string | readonly string[];
  readonly protocol: ProtocolName;
  readonly logger: Logger;
  /** Most unacknowledged uplinks kept (default 10000). */
  readonly bufferLimit?: number;
  /** IOT_MAX_MESSAGE_SIZE: larger uplink payloads are refused (MESSAGE_TOO_LARGE) before being buffered, bytes. */
  readonly maxMessageSize?: number;
  /** Deadline of one Authenticate(Batch) call once sent, ms (default 10000); waiting for a slot does not count. */
  readonly authTimeoutMs?: number;
  /**
   * Most AuthenticateBatch calls in flight at once (default 4): devices that arrive meanwhile wait in arrival order
   * and go out together in the next call (see CallBatcher); while one is in flight, another leaves only with at least
   * a quarter of `authBatchMax` devices.
   */
  readonly authConcurrency?: number;
  /** Most devices checked in one AuthenticateBatch call (default 200, at most the registry's 1000). */
  readonly authBatchMax?: number;
  /**
   * Least time between two AuthenticateBatch calls that leave because none is in flight, ms (default 4): a device
   * arriving after a quiet spell goes at once, but in a connect storm the answers came back so fast that the calls
   * carried a median of 1–2 devices, each call costing both nodes an HTTP/2 stream and four lookups.
   */
  readonly authGapMs?: number;
  /**
   * IOT_ADAPTER_AUTH_QUEUE_LIMIT: most devices waiting for their turn to be checked (default 5000, about a second of
   * the central node's checks in a connect storm). A device arriving while the queue is this long is answered
   * UNAVAILABLE at once (the protocol's "server unavailable": retry later) without anything built or sent for it, and
   * counted as an authentication with outcome `queue_full`: a restarted adapter sheds the part of its reconnect storm
   * it cannot check soon instead of holding every connection until the devices give up.
   */
  readonly authQueueLimit?: number;
  /** How long close() waits for pending acks (default 2000). */
  readonly closeDrainMs?: number;
  /**
   * Reconnect delays (default 100 ms doubling to 2 s, with jitter; with several nodes, per round of them). The
   * steps start over once a link has stayed up 2 s (see RegistryOutage).
   */
  readonly backoff?: BackoffOptions;
  /**
   * With several addresses: how long a new stream may wait for the node's HelloAck before the client gives up on that
   * node and tries the next (a node that accepts connections but is stuck), ms (default 3000).
   */
  readonly helloTimeoutMs?: number;
  /** Adapter version reported in Hello. */
  readonly version?: string;
  /** IOT_REGISTRY_TOKEN: sent with every call when set. */
  readonly token?: string | undefined;
}

/** `<protocol>-<hostname>-<random>`: unique per process start, as Hello requires. */
export function newInstanceId(protocol: ProtocolName): string {
  return `${protocol}-${hostname()}-${randomBytes(4).toString("hex")}`;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Longest reconnect delay by default, ms: an outage costs at most this much after the registry is back. */
const DEFAULT_MAX_BACKOFF_MS = 2_000;

/**
 * The registry over gRPC: unary Authenticate plus one Connect stream that
 * survives the registry going away (Hello with every live session on each
 * reconnect, replay of unacked uplinks in seq order, backoff with jitter).
 * Stream failures are logged, never thrown.
 */
export class GrpcRegistryClient implements RegistryClient {
  readonly instanceId: string;
  private readonly link: RegistryLink;
  private readonly buffer: UplinkBuffer;
  private readonly live = new LiveSessions();
  private readonly backoff: BackoffOptions & { maxMs: number };
  private readonly log: Logger;
  private handlers: RegistryHandlers = {};
  private readonly outbox: StreamOutbox;
  private readonly auths: AuthenticateCalls;
  /** The registry of this stream said (HelloAck) that it answers AuthenticateCall on it. */
  private registryStreamAuth = false;
  private readonly metrics: AdapterMetrics;
  /** Per-tenant uplink rate limits (maxUplinkRate), from Authenticate answers and TenantLimits pushes. */
  private readonly rates: TenantRateLimiter;

  constructor(private readonly opts: GrpcRegistryClientOptions) {
    this.instanceId = newInstanceId(opts.protocol);
    this.metrics = adapterMetrics(opts.protocol);
    this.buffer = new UplinkBuffer(opts.bufferLimit ?? 10_000, opts.maxMessageSize);
    this.backoff = { maxMs: DEFAULT_MAX_BACKOFF_MS, ...opts.backoff };
    this.log = opts.logger.child({ component: "registry-client", instance: this.instanceId });
    this.link = new RegistryLink({
      addresses: typeof opts.address === "string" ? [opts.address] : opts.address,
      backoff: this.backoff,
      helloTimeoutMs: opts.helloTimeoutMs ?? 3000,
      token: opts.token,
      log: this.log,
      metrics: this.metrics,
      pendingUplinks: () => this.buffer.size,
      opened: () => this.streamOpened(),
      message: (m) => this.onMessage(m),
      // Checks sent on this stream get no answer now: their devices are told the registry is unreachable.
      lost: (why) => this.auths.streamAnswers.failAll(new Error(why)),
    });
    this.outbox = new StreamOutbox(() => this.link.call, this.buffer.limit, this.log);
    this.auths = new AuthenticateCalls({
      raw: () => this.link.raw,
      streamWriter: () => (this.link.call && this.registryStreamAuth ? (m) => this.outbox.write(m) : undefined),
      log: this.log,
      timeoutMs: opts.authTimeoutMs ?? 10_000,
      concurrency: opts.authConcurrency ?? 4,
      batchMax: opts.authBatchMax ?? 200,
      gapMs: opts.authGapMs ?? 4,
    });
    this.rates = new TenantRateLimiter((tenantId, refused, rate) =>
      this.log.warn({ tenantId, refused, maxUplinkRate: rate }, "tenant over its uplink rate; uplinks refused"),
    );
  }

  /** The node address in use now (`host:port` as configured). */
  get registryAddress(): string {
    return this.link.address;
  }

  get state(): RegistryLinkState {
    return this.link.state;
  }

  get pendingUplinks(): number {
    return this.buffer.size;
  }

  authenticate(
    protocol: ProtocolName,
    credentials: DeviceCredentials,
    clientIp: string,
    signal?: GiveUpSignal,
  ): Promise<AuthOutcome> {
    const unavailable = (why: string): AuthOutcome => ({
      ok: false,
      code: "UNAVAILABLE",
      message: `registry unreachable: ${why}`,
    });
    if (this.link.state === "closed") return Promise.resolve(unavailable("client closed"));
    const limit = this.opts.authQueueLimit ?? DEFAULT_AUTH_QUEUE_LIMIT;
    if (this.auths.waiting >= limit) {
      this.metrics.authentication("queue_full");
      return Promise.resolve({
        ok: false,
        code: "UNAVAILABLE",
        message: `authentication queue full (${limit} devices waiting)`,
        busy: true,
      });
    }
    const req = toAuthenticateRequest(protocol, credentials, clientIp, this.instanceId);
    return this.auths
      .run(req, signal)
      .then((outcome) => {
        if (outcome.ok) this.rates.setRate(outcome.session.device.tenantId, outcome.session.tenantUplinkRate ?? 0);
        return outcome;
      })
      .catch((err: unknown) => unavailable((err as Error).message))
      .then((outcome) => {
        this.metrics.authentication(outcome.ok ? "ok" : outcome.code.toLowerCase());
        return outcome;
      });
  }

  sessionOpened(session: DeviceSession, info: SessionInfo): void {
    const live = this.live.open(session, info);
    this.metrics.sessions(this.live.size);
    this.outbox.sessionOpened(live);
  }

  loraActivate(
    deviceIntId: number,
    devNonce: number,
    session: Pick<LoraSessionInfo, "devAddr" | "nwkSKey" | "appSKey">,
  ): Promise<{ result: LoraActivateResult; message: string }> {
    const req = create(LoraActivateRequestSchema, {
      deviceIntId: BigInt(deviceIntId),
      devNonce,
      session: { ...session, fcntUp: 0, fcntDown: 0 },
      adapterInstanceId: this.instanceId,
    });
    return loraActivate(this.link.raw, req);
  }

  reportLoraCounters(counters: readonly LoraCounterReport[]): void {
    if (counters.length > 0) this.outbox.send(loraCountersMessage(counters));
  }

  sessionState(session: DeviceSession, sleeping: boolean): void {
    if (this.live.setSleeping(session.sessionId, sleeping)) this.outbox.send(sessionStateMessage(session, sleeping));
  }

  sessionClosed(session: DeviceSession, reason: string): void {
    this.live.close(session.sessionId);
    this.metrics.sessions(this.live.size);
    this.outbox.send(sessionClosedMessage(session, reason, Date.now()));
  }

  publish(uplink: Uplink): Promise<void> {
    return uplinkPromise((settled) => this.publishThen(uplink, settled));
  }

  publishThen(uplink: Uplink, settled: UplinkSettled, waitForRoom = false): void {
    if (this.link.state === "closed") {
      this.metrics.uplink("closed");
      return refuseUplink(settled, new AdapterError("CLIENT_CLOSED", "registry client is closed"));
    }
    if (!this.rates.take(uplink.tenantId)) {
      this.metrics.uplink("rate_limited");
      return refuseUplink(settled, new AdapterError("RATE_LIMITED", "tenant over its uplink rate (maxUplinkRate)"));
    }
    let seq: number;
    try {
      seq = waitForRoom ? this.buffer.addOrWait(uplink, settled, this.admitted) : this.buffer.add(uplink, settled);
    } catch (err) {
      this.metrics.uplink(uplinkOutcome(err));
      return refuseUplink(settled, err as Error);
    }
    // Its outcome is counted where it settles (uplinkAck, close): no closures per uplink on this path.
    if (seq !== 0) this.admitted(seq, uplink);
    else this.metrics.bufferDepth(this.buffer.size, this.buffer.waitingCount);
  }

  /** An uplink got its place in the buffer (at once, or after waiting for room): it goes to the registry. */
  private readonly admitted = (seq: number, uplink: Uplink): void => {
    this.metrics.bufferDepth(this.buffer.size, this.buffer.waitingCount);
    this.outbox.uplink(seq, uplink);
  };

  setHandlers(handlers: RegistryHandlers): void {
    this.handlers = handlers;
  }

  issueListenerCertificate(csrPem: string, hostnames: readonly string[]): Promise<ListenerCertificate> {
    const req = toListenerCertificateRequest(csrPem, hostnames, this.instanceId);
    const ctx = { raw: () => this.link.raw, closed: () => this.link.state === "closed", log: this.log };
    return issueListenerCertificate(ctx, req, this.backoff);
  }

  start(): void {
    this.link.start();
  }

  async close(): Promise<void> {
    if (this.link.state === "closed") return;
    const wasConnected = this.link.state === "connected";
    this.link.stop();
    const until = Date.now() + (this.opts.closeDrainMs ?? 2000);
    while (wasConnected && this.link.call && this.buffer.size > 0 && Date.now() < until) await sleep(20);
    this.outbox.flushResults(); // the outcomes of the last turn still reach the registry
    const ended = this.link.end();
    this.auths.streamAnswers.failAll(new Error("client closed"));
    await ended;
    if (this.buffer.size > 0)
      this.log.warn({ pendingUplinks: this.buffer.size }, "closing with unacknowledged uplinks");
    const failed = this.buffer.failAll(
      new AdapterError("CLIENT_CLOSED", "registry client closed before the registry acknowledged the uplink"),
    );
    if (failed > 0) this.metrics.uplink("closed", failed);
    this.metrics.bufferDepth(0);
  }

  /** A new stream: Hello with every live session, then the unacknowledged uplinks and unsent results. */
  private streamOpened(): void {
    this.outbox.reset();
    this.registryStreamAuth = false;
    this.outbox.send(helloMessage(this.instanceId, this.opts.protocol, this.opts.version ?? "0.0.0", this.live.all()));
    for (const p of this.buffer.pending()) this.outbox.send(uplinkMessage(p.seq, p.uplink));
    this.outbox.sendUnsent();
  }

  private onMessage(m: RegistryMessage): void {
    const k = m.kind;
    switch (k.case) {
      case "helloAck":
        this.outbox.accept(k.value);
        this.registryStreamAuth = k.value.streamAuthentication;
        this.link.up(k.value.nodeId, { sessions: this.live.size, replayed: this.buffer.size });
        return;
      case "uplinkAck":
        applyUplinkAck(k.value, this.buffer, this.metrics, this.log);
        return;
      case "downlink":
        void this.runDownlink(k.value);
        return;
      case "downlinkBatch":
        for (const d of k.value.downlinks) void this.runDownlink(d);
        return;
      case "kick":
        this.safely("kick", () => this.handlers.kick?.(Number(k.value.deviceIntId), k.value.reason));
        return;
      case "policyUpdate": {
        const deviceIntId = Number(k.value.deviceIntId);
        const policies = fromPolicies(k.value.policies);
        this.live.applyPolicies(deviceIntId, policies);
        this.safely("policy update", () => this.handlers.policyUpdate?.(deviceIntId, policies));
        return;
      }
      case "subscriptionUpdate": {
        const deviceIntId = Number(k.value.deviceIntId);
        const subscriptions = fromSubscriptions(k.value.subscriptions);
        const previous = this.live.applySubscriptions(deviceIntId, subscriptions);
        this.safely("subscription update", () =>
          this.handlers.subscriptionUpdate?.(deviceIntId, subscriptions, previous),
        );
        return;
      }
      case "authenticateAnswer":
        this.auths.streamAnswers.settle(Number(k.value.id), k.value);
        return;
      case "tenantLimits":
        this.rates.setRate(k.value.tenantId, k.value.maxUplinkRate);
        this.log.info({ tenantId: k.value.tenantId, maxUplinkRate: k.value.maxUplinkRate }, "tenant uplink rate set");
        return;
      default:
        return;
    }
  }

  private async runDownlink(pb: Parameters<typeof fromDownlink>[0]): Promise<void> {
    const downlink = fromDownlink(pb);
    const outcome = await dispatchDownlink(this.handlers, downlink);
    this.metrics.command(outcome.status.toLowerCase());
    this.outbox.result(downlinkResultValue(downlink.id, outcome.status, outcome.message ?? ""));
  }

  private safely(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err }, `${what} handler failed`);
    }
  }
}

/** Creates the production registry client (call start() to connect). */
export function createGrpcRegistryClient(options: GrpcRegistryClientOptions): RegistryClient {
  return new GrpcRegistryClient(options);
}

/** The registry client of an adapter process, from the settings every adapter shares (call start() to connect). */
export function registryClientFor(config: AdapterConfig, protocol: ProtocolName, logger: Logger): RegistryClient {
  return createGrpcRegistryClient({
    address: config.registryUrls,
    protocol,
    logger,
    bufferLimit: config.bufferLimit,
    maxMessageSize: config.maxMessageSize,
    authQueueLimit: config.authQueueLimit,
    token: config.registryToken,
  });
}
