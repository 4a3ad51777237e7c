/**
 * The registry client of an adapter process over gRPC: its lifecycle (start, close and drain), the Connect stream's
 * link (Hello with every live session, replay of unacknowledged uplinks, reconnect with backoff across the nodes)
 * and what the adapter asks of the registry. What goes out on the stream is batched by StreamOutbox, device checks by
 * AuthenticateCalls, the registry's messages are applied by RegistryMessages, the other unary calls are in
 * registry-grpc-calls.ts; its settings are in grpc-registry-client-options.ts.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { create, LoraActivateRequestSchema } from "@iot/proto";
import type { Logger } from "pino";
import { adapterMetrics, type AdapterMetrics } from "./adapter-metrics.js";
import type { BackoffOptions } from "@iot/config";
import { AuthenticateCalls } from "./authenticate-calls.js";
import { RegistryLink } from "./registry-link.js";
import { DEFAULT_AUTH_QUEUE_LIMIT } from "./config.js";
import { AdapterError } from "./errors.js";
import type { GrpcRegistryClientOptions } from "./grpc-registry-client-options.js";
import {
  helloMessage,
  sessionClosedMessage,
  sessionStateMessage,
  authenticationFailedMessage,
  toAuthenticateRequest,
  toListenerCertificateRequest,
  uplinkMessage,
} from "./grpc-convert.js";
import { LiveSessions } from "./live-sessions.js";
import { loraCountersMessage } from "./lora-convert.js";
import type { LoraActivateResult, LoraCounterReport, LoraSessionInfo } from "./lora-types.js";
import { mqttSessionMessage } from "./mqtt-session-convert.js";
import { issueListenerCertificate, loraActivate } from "./registry-grpc-calls.js";
import { RegistryMessages } from "./registry-messages.js";
import { StreamOutbox } from "./stream-outbox.js";
import { TenantRateLimiter } from "./tenant-rate-limiter.js";
import type {
  AuthOutcome,
  DeviceCredentials,
  DeviceSession,
  GiveUpSignal,
  ListenerCertificate,
  ProtocolName,
  RegistryClient,
  RegistryHandlers,
  RegistryLinkState,
  SessionInfo,
  Uplink,
  UplinkSettled,
  MqttSessionAsk,
  MqttSessionReport,
} from "./registry-client.js";
import { refuseUplink, UplinkBuffer, uplinkPromise } from "./uplink-buffer.js";
import { uplinkOutcome } from "./uplink-outcomes.js";

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
  private readonly messages: RegistryMessages;
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
      message: (m) => this.messages.handle(m),
      // Checks sent on this stream get no answer now: their devices are told the registry is unreachable.
      lost: (why) => this.auths.streamAnswers.failAll(new Error(why)),
    });
    this.outbox = new StreamOutbox(() => this.link.call, this.buffer.limit, this.log);
    this.auths = new AuthenticateCalls({
      raw: () => this.link.raw,
      streamWriter: () =>
        this.link.call && this.messages.streamAuthentication ? (m) => this.outbox.write(m) : undefined,
      log: this.log,
      timeoutMs: opts.authTimeoutMs ?? 10_000,
      concurrency: opts.authConcurrency ?? 4,
      batchMax: opts.authBatchMax ?? 200,
      gapMs: opts.authGapMs ?? 4,
    });
    this.rates = new TenantRateLimiter((tenantId, refused, rate) =>
      this.log.warn({ tenantId, refused, maxUplinkRate: rate }, "tenant over its uplink rate; uplinks refused"),
    );
    this.messages = new RegistryMessages({
      link: this.link,
      outbox: this.outbox,
      buffer: this.buffer,
      live: this.live,
      auths: this.auths,
      rates: this.rates,
      metrics: this.metrics,
      log: this.log,
      handlers: () => this.handlers,
    });
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
    mqttSession?: MqttSessionAsk,
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
    const req = toAuthenticateRequest(protocol, credentials, clientIp, this.instanceId, mqttSession);
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
    session: Pick<LoraSessionInfo, "devAddr" | "nwkSKey" | "appSKey" | "lorawan11">,
  ): Promise<{ result: LoraActivateResult; message: string }> {
    const { lorawan11, ...keys } = session;
    const req = create(LoraActivateRequestSchema, {
      deviceIntId: BigInt(deviceIntId),
      devNonce,
      session: {
        ...keys,
        fcntUp: 0,
        fcntDown: 0,
        ...(lorawan11 && {
          fNwkSIntKey: lorawan11.fNwkSIntKey,
          sNwkSIntKey: lorawan11.sNwkSIntKey,
          nwkSEncKey: lorawan11.nwkSEncKey,
          joinNonce: lorawan11.joinNonce,
          rejoin: lorawan11.rejoin ?? false,
        }),
      },
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

  reportAuthFailure(protocol: ProtocolName, credentials: DeviceCredentials, clientIp: string, reason: string): void {
    this.outbox.send(authenticationFailedMessage(protocol, credentials, clientIp, reason));
  }

  updateMqttSession(session: DeviceSession, report: MqttSessionReport): void {
    this.outbox.send(mqttSessionMessage(session, report, Date.now()));
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
    this.messages.streamOpened();
    this.outbox.send(helloMessage(this.instanceId, this.opts.protocol, this.opts.version ?? "0.0.0", this.live.all()));
    for (const p of this.buffer.pending()) this.outbox.send(uplinkMessage(p.seq, p.uplink));
    this.outbox.sendUnsent();
  }
}
