import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  RegistryGrpcClient,
  BATCH_MAX_BYTES,
  BATCH_MAX_ITEMS,
  channelOptions,
  failoverKeepalive,
  grpc,
  type AdapterMessage,
  type SessionOpened,
  type EncodedAdapterMessage,
  type AuthenticateBatchRequest,
  type AuthenticateBatchResponse,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type AuthenticateAnswer,
  type IssueListenerCertificateRequest,
  type IssueListenerCertificateResponse,
  type LoraActivateRequest,
  type LoraActivateResponse,
  type RegistryMessage,
  create,
  AuthenticateBatchRequestSchema,
  LoraActivateRequestSchema,
  LoraActivateResult as LoraActivateCode,
} from "@iot/proto";
import type { Logger } from "pino";
import { adapterMetrics, type AdapterMetrics } from "./adapter-metrics.js";
import { Backoff, type BackoffOptions } from "@iot/config";
import { RegistryOutage } from "./registry-outage.js";
import { RegistryEndpoints } from "./registry-endpoints.js";
import type { AdapterConfig } from "./config.js";
import { CallBatcher } from "./call-batcher.js";
import { StreamAnswers } from "./stream-answers.js";
import { dispatchDownlink } from "./downlink-dispatch.js";
import { AdapterError } from "./errors.js";
import {
  authenticateCallMessage,
  downlinkResultMessage,
  downlinkResultsMessage,
  downlinkResultValue,
  type DownlinkResultInit,
  fromAuthenticateResponse,
  fromDownlink,
  fromPolicies,
  fromSubscriptions,
  helloMessage,
  sessionClosedMessage,
  sessionOpenedMessage,
  sessionOpenedValue,
  sessionsOpenedMessage,
  sessionStateMessage,
  loraCountersMessage,
  toAuthenticateRequest,
  toListenerCertificateRequest,
  uplinkBatchMessage,
  uplinkMessage,
  uplinkValue,
  type UplinkInit,
} from "./grpc-convert.js";
import { LiveSessions } from "./live-sessions.js";
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

/** The Connect stream; uplinks go as bytes encoded beforehand (the proto package's serializer passes them on). */
type ConnectCall = grpc.ClientDuplexStream<AdapterMessage | EncodedAdapterMessage, RegistryMessage>;

/** The RPCs of the generic grpc-js client, typed. */
interface RawRegistryClient {
  authenticate(
    req: AuthenticateRequest,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: AuthenticateResponse) => void,
  ): grpc.ClientUnaryCall;
  authenticateBatch(
    req: AuthenticateBatchRequest,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: AuthenticateBatchResponse) => void,
  ): grpc.ClientUnaryCall;
  issueListenerCertificate(
    req: IssueListenerCertificateRequest,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: IssueListenerCertificateResponse) => void,
  ): grpc.ClientUnaryCall;
  loraActivate(
    req: LoraActivateRequest,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, res?: LoraActivateResponse) => void,
  ): grpc.ClientUnaryCall;
  connect(): ConnectCall;
  close(): void;
}

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

/** A client interceptor adding `authorization: Bearer <token>` to every call. */
function withToken(token: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set("authorization", `Bearer ${token}`);
        next(metadata, listener);
      },
    });
}

/** `<protocol>-<hostname>-<random>`: unique per process start, as Hello requires. */
export function newInstanceId(protocol: ProtocolName): string {
  return `${protocol}-${hostname()}-${randomBytes(4).toString("hex")}`;
}

function channel(address: string): { target: string; credentials: grpc.ChannelCredentials } {
  const bare = address.replace(/\/+$/, "");
  if (bare.startsWith("https://")) return { target: bare.slice(8), credentials: grpc.credentials.createSsl() };
  return { target: bare.replace(/^http:\/\//, ""), credentials: grpc.credentials.createInsecure() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** gRPC codes that mean "the registry could not answer now": asking again later may work. */
const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED]);
/** Longest reconnect delay by default, ms: an outage costs at most this much after the registry is back. */
const DEFAULT_MAX_BACKOFF_MS = 2_000;
/** Deadline of one IssueListenerCertificate call, ms (the first one may create the service CA). */
const ISSUE_TIMEOUT_MS = 10_000;

const LORA_ACTIVATE_RESULTS: Partial<Record<LoraActivateCode, LoraActivateResult>> = {
  [LoraActivateCode.OK]: "OK",
  [LoraActivateCode.DEV_NONCE_REUSED]: "DEV_NONCE_REUSED",
  [LoraActivateCode.DEV_ADDR_TAKEN]: "DEV_ADDR_TAKEN",
  [LoraActivateCode.NOT_ALLOWED]: "NOT_ALLOWED",
};

/**
 * The registry over gRPC: unary Authenticate plus one Connect stream that
 * survives the registry going away (Hello with every live session on each
 * reconnect, replay of unacked uplinks in seq order, backoff with jitter).
 * Stream failures are logged, never thrown.
 */
export class GrpcRegistryClient implements RegistryClient {
  readonly instanceId: string;
  private linkState: RegistryLinkState = "idle";
  /** What is logged of outages of the link: their start, a summary every 30 s, their end. */
  private readonly outage: RegistryOutage;
  /** One gRPC client per node address, in the order of `endpoints.addresses`. */
  private readonly raws: RawRegistryClient[];
  private readonly buffer: UplinkBuffer;
  private readonly live = new LiveSessions();
  private readonly endpoints: RegistryEndpoints;
  private readonly log: Logger;
  private handlers: RegistryHandlers = {};
  private call: ConnectCall | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private helloTimer: NodeJS.Timeout | undefined;
  private unsentResults: AdapterMessage[] = [];
  /** The registry of this stream said (HelloAck) that it takes UplinkBatch messages. */
  private registryBatches = false;
  /** The registry of this stream said (HelloAck) that it takes DownlinkResultBatch messages. */
  private registryResultBatches = false;
  /** Downlink results of this turn of the event loop, sent together as one DownlinkResultBatch when it ends. */
  private results: DownlinkResultInit[] = [];
  private resultsFlush: NodeJS.Immediate | undefined;
  /** The registry of this stream said (HelloAck) that it takes SessionOpenedBatch messages. */
  private registryOpenedBatches = false;
  /** Sessions opened in this turn of the event loop, sent together as one SessionOpenedBatch before anything else. */
  private opened: SessionOpened[] = [];
  private openedFlush: NodeJS.Immediate | undefined;
  /** Uplinks of this turn of the event loop, sent together as one UplinkBatch when it ends. */
  private outgoing: UplinkInit[] = [];
  private outgoingBytes = 0;
  private outgoingFlush: NodeJS.Immediate | undefined;
  private readonly auths: CallBatcher<AuthenticateRequest, AuthOutcome>;
  /** The node answered AuthenticateBatch UNIMPLEMENTED (an older registry): one Authenticate call per device. */
  private batchUnsupported = false;
  /** The registry of this stream said (HelloAck) that it answers AuthenticateCall on it. */
  private registryStreamAuth = false;
  /** AuthenticateCalls sent on this stream, waiting for their answers. */
  private readonly streamAuths: StreamAnswers<AuthenticateAnswer>;
  private readonly metrics: AdapterMetrics;
  /** Per-tenant uplink rate limits (maxUplinkRate), from Authenticate answers and TenantLimits pushes. */
  private readonly rates: TenantRateLimiter;

  constructor(private readonly opts: GrpcRegistryClientOptions) {
    this.instanceId = newInstanceId(opts.protocol);
    this.metrics = adapterMetrics(opts.protocol);
    this.buffer = new UplinkBuffer(opts.bufferLimit ?? 10_000, opts.maxMessageSize);
    const authBatchMax = opts.authBatchMax ?? 200;
    this.streamAuths = new StreamAnswers(opts.authTimeoutMs ?? 10_000);
    this.auths = new CallBatcher(
      (reqs) => this.callAuthenticate(reqs),
      opts.authConcurrency ?? 4,
      authBatchMax,
      Math.ceil(authBatchMax / 4),
      opts.authGapMs ?? 4,
    );
    const backoff = { maxMs: DEFAULT_MAX_BACKOFF_MS, ...opts.backoff };
    this.endpoints = new RegistryEndpoints(typeof opts.address === "string" ? [opts.address] : opts.address, backoff);
    this.log = opts.logger.child({ component: "registry-client", instance: this.instanceId });
    // A link that stayed up is the success that resets the backoff: one that drops right after Hello is not.
    this.outage = new RegistryOutage(this.log, { onStable: () => this.endpoints.connected() });
    this.rates = new TenantRateLimiter((tenantId, refused, rate) =>
      this.log.warn({ tenantId, refused, maxUplinkRate: rate }, "tenant over its uplink rate; uplinks refused"),
    );
    const maxMs = backoff.maxMs;
    this.raws = this.endpoints.addresses.map((address) => {
      const { target, credentials } = channel(address);
      return new RegistryGrpcClient(target, credentials, {
        ...channelOptions,
        // With several nodes, one that vanished silently must be left within the failover bound.
        ...(this.endpoints.addresses.length > 1 ? failoverKeepalive : {}),
        "grpc.initial_reconnect_backoff_ms": opts.backoff?.initialMs ?? 100,
        "grpc.max_reconnect_backoff_ms": maxMs,
        ...(opts.token ? { interceptors: [withToken(opts.token)] } : {}),
      }) as unknown as RawRegistryClient;
    });
  }

  /** The gRPC client of the node in use: unary calls go where the stream goes. */
  private get raw(): RawRegistryClient {
    return this.raws[this.endpoints.currentIndex]!;
  }

  /** The node address in use now (`host:port` as configured). */
  get registryAddress(): string {
    return this.endpoints.current;
  }

  get state(): RegistryLinkState {
    return this.linkState;
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
    if (this.linkState === "closed") return Promise.resolve(unavailable("client closed"));
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

  /**
   * Checks the devices of one batch: on the Connect stream when its registry answers there, else one AuthenticateBatch
   * call, or one Authenticate call each when the node does not know AuthenticateBatch (it is then not asked again).
   * Rejects when the registry could not answer.
   */
  private async callAuthenticate(reqs: AuthenticateRequest[]): Promise<AuthOutcome[]> {
    if (this.call && this.registryStreamAuth) {
      const { id, answer } = this.streamAuths.open();
      if (!this.write(authenticateCallMessage(id, reqs))) this.streamAuths.fail(id, new Error("stream write failed"));
      const res = await answer;
      if (res.error) throw new Error(res.error);
      if (res.responses.length !== reqs.length)
        throw new Error(`registry answered ${res.responses.length} of ${reqs.length} authentications`);
      return res.responses.map(fromAuthenticateResponse);
    }
    if (!this.batchUnsupported) {
      try {
        const res = await this.unary<AuthenticateBatchResponse>((md, options, cb) =>
          this.raw.authenticateBatch(create(AuthenticateBatchRequestSchema, { requests: reqs }), md, options, cb),
        );
        if (res.responses.length !== reqs.length)
          throw new Error(`registry answered ${res.responses.length} of ${reqs.length} authentications`);
        return res.responses.map(fromAuthenticateResponse);
      } catch (err) {
        if ((err as Partial<grpc.ServiceError>).code !== grpc.status.UNIMPLEMENTED) throw err;
        this.batchUnsupported = true;
        this.log.info("registry does not take AuthenticateBatch; authenticating one device per call");
      }
    }
    return Promise.all(
      reqs.map((req) =>
        this.unary<AuthenticateResponse>((md, options, cb) => this.raw.authenticate(req, md, options, cb)).then(
          fromAuthenticateResponse,
        ),
      ),
    );
  }

  /** One unary call with the authentication deadline; rejects with the gRPC error (its details as message). */
  private unary<Res>(
    start: (
      md: grpc.Metadata,
      options: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, res?: Res) => void,
    ) => void,
  ): Promise<Res> {
    const deadline = Date.now() + (this.opts.authTimeoutMs ?? 10_000);
    return new Promise((resolve, reject) =>
      start(new grpc.Metadata(), { deadline }, (err, res) => {
        if (err) reject(Object.assign(new Error(err.details || err.message), { code: err.code }));
        else if (!res) reject(new Error("no answer"));
        else resolve(res);
      }),
    );
  }

  sessionOpened(session: DeviceSession, info: SessionInfo): void {
    const live = this.live.open(session, info);
    this.metrics.sessions(this.live.size);
    if (!this.call || !this.registryOpenedBatches) {
      this.send(sessionOpenedMessage(live));
      return;
    }
    // A connect storm opens thousands a second: those of this turn go as one stream message.
    if (this.opened.push(sessionOpenedValue(live)) >= BATCH_MAX_ITEMS) this.flushOpened();
    else this.openedFlush ??= setImmediate(() => this.flushOpened());
  }

  /** Sends the sessions opened so far; a session's SessionOpened always goes before its uplinks and its close. */
  private flushOpened(): void {
    clearImmediate(this.openedFlush);
    this.openedFlush = undefined;
    const sessions = this.opened;
    if (sessions.length === 0) return;
    this.opened = [];
    this.write(sessionsOpenedMessage(sessions));
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
    return new Promise((resolve) => {
      try {
        this.raw.loraActivate(req, new grpc.Metadata(), { deadline: Date.now() + ISSUE_TIMEOUT_MS }, (err, res) =>
          resolve(
            err || !res
              ? { result: "UNAVAILABLE", message: err?.details ?? "no answer" }
              : { result: LORA_ACTIVATE_RESULTS[res.result] ?? "UNAVAILABLE", message: res.message },
          ),
        );
      } catch (err) {
        resolve({ result: "UNAVAILABLE", message: (err as Error).message });
      }
    });
  }

  reportLoraCounters(counters: readonly LoraCounterReport[]): void {
    if (counters.length > 0) this.send(loraCountersMessage(counters));
  }

  sessionState(session: DeviceSession, sleeping: boolean): void {
    if (this.live.setSleeping(session.sessionId, sleeping)) this.send(sessionStateMessage(session, sleeping));
  }

  sessionClosed(session: DeviceSession, reason: string): void {
    this.live.close(session.sessionId);
    this.metrics.sessions(this.live.size);
    this.send(sessionClosedMessage(session, reason, Date.now()));
  }

  publish(uplink: Uplink): Promise<void> {
    return uplinkPromise((settled) => this.publishThen(uplink, settled));
  }

  publishThen(uplink: Uplink, settled: UplinkSettled, waitForRoom = false): void {
    if (this.linkState === "closed") {
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
    this.queueUplink(seq, uplink);
  };

  setHandlers(handlers: RegistryHandlers): void {
    this.handlers = handlers;
  }

  async issueListenerCertificate(csrPem: string, hostnames: readonly string[]): Promise<ListenerCertificate> {
    const req = toListenerCertificateRequest(csrPem, hostnames, this.instanceId);
    const backoff = new Backoff({ maxMs: DEFAULT_MAX_BACKOFF_MS, ...this.opts.backoff });
    for (;;) {
      if (this.linkState === "closed")
        throw new AdapterError("CLIENT_CLOSED", "registry client closed before the listener certificate was issued");
      const answer = await new Promise<{ err: grpc.ServiceError | null; res?: IssueListenerCertificateResponse }>(
        (resolve) => {
          try {
            this.raw.issueListenerCertificate(
              req,
              new grpc.Metadata(),
              { deadline: Date.now() + ISSUE_TIMEOUT_MS },
              (err, res) => resolve({ err, ...(res ? { res } : {}) }),
            );
          } catch (err) {
            resolve({
              err: Object.assign(err as Error, {
                code: grpc.status.UNAVAILABLE,
                details: (err as Error).message,
                metadata: new grpc.Metadata(),
              }),
            });
          }
        },
      );
      if (answer.res && !answer.err) return { certPem: answer.res.certPem, caPem: answer.res.caPem };
      const err = answer.err!;
      if (!RETRYABLE.has(err.code)) {
        throw new AdapterError(
          "REQUEST_REJECTED",
          `registry refused the listener certificate: ${err.details || err.message}`,
          { cause: err },
        );
      }
      const delay = backoff.next();
      this.log.warn(
        { reason: err.details || err.message, retryInMs: delay },
        "registry not reachable for the listener certificate; retrying",
      );
      await sleep(delay);
    }
  }

  start(): void {
    if (this.linkState !== "idle") return;
    this.openStream();
  }

  async close(): Promise<void> {
    if (this.linkState === "closed") return;
    const wasConnected = this.linkState === "connected";
    this.linkState = "closed";
    this.outage.close();
    clearTimeout(this.retryTimer);
    clearTimeout(this.helloTimer);
    const until = Date.now() + (this.opts.closeDrainMs ?? 2000);
    while (wasConnected && this.call && this.buffer.size > 0 && Date.now() < until) await sleep(20);
    this.flushResults(); // the outcomes of the last turn still reach the registry
    const call = this.call;
    this.call = undefined;
    this.streamAuths.failAll(new Error("client closed"));
    if (call) {
      const ended = new Promise<void>((r) => call.once("status", () => r()));
      call.end();
      await Promise.race([ended, sleep(1000)]);
      call.cancel();
    }
    if (this.buffer.size > 0)
      this.log.warn({ pendingUplinks: this.buffer.size }, "closing with unacknowledged uplinks");
    const failed = this.buffer.failAll(
      new AdapterError("CLIENT_CLOSED", "registry client closed before the registry acknowledged the uplink"),
    );
    if (failed > 0) this.metrics.uplink("closed", failed);
    this.metrics.bufferDepth(0);
    this.metrics.registryConnected(false);
    for (const raw of this.raws) raw.close();
  }

  /**
   * Sends an uplink with the others of this turn of the event loop, in one UplinkBatch when the registry takes them.
   * Without a stream it is only buffered: the replay after the next Hello sends it.
   */
  private queueUplink(seq: number, uplink: Uplink): void {
    if (!this.call) return;
    if (!this.registryBatches) {
      this.send(uplinkMessage(seq, uplink));
      return;
    }
    this.outgoing.push(uplinkValue(seq, uplink));
    this.outgoingBytes += uplink.payload.byteLength + uplink.topic.length + (uplink.metadata?.length ?? 0);
    if (this.outgoing.length >= BATCH_MAX_ITEMS || this.outgoingBytes >= BATCH_MAX_BYTES) this.flushUplinks();
    else this.outgoingFlush ??= setImmediate(() => this.flushUplinks());
  }

  private flushUplinks(): void {
    this.flushOpened();
    clearImmediate(this.outgoingFlush);
    this.outgoingFlush = undefined;
    const uplinks = this.outgoing;
    if (uplinks.length === 0) return;
    this.outgoing = [];
    this.outgoingBytes = 0;
    this.write(uplinkBatchMessage(uplinks));
  }

  /** Writes to the stream after the uplinks queued before it (order matters: an uplink, then its session's close). */
  private send(message: AdapterMessage): boolean {
    this.flushOpened();
    if (this.outgoing.length > 0) this.flushUplinks();
    return this.write(message);
  }

  /** Writes to the current stream; false when there is none (the next Hello/replay covers it). */
  private write(message: AdapterMessage | EncodedAdapterMessage): boolean {
    if (!this.call) return false;
    try {
      this.call.write(message);
      return true;
    } catch (err) {
      this.log.warn({ err }, "write to registry stream failed");
      return false;
    }
  }

  private openStream(): void {
    this.linkState = "connecting";
    this.metrics.registryReconnect();
    const call = this.raw.connect();
    this.call = call;
    // Uplinks queued for the old stream are in the buffer: the replay below sends them, singly until HelloAck.
    this.registryBatches = false;
    // Results queued for the old stream go with the unsent ones below, singly until HelloAck.
    this.registryResultBatches = false;
    clearImmediate(this.resultsFlush);
    this.resultsFlush = undefined;
    for (const r of this.results.splice(0)) this.keepUnsent(downlinkResultMessage(r));
    this.outgoing = [];
    this.outgoingBytes = 0;
    // Sessions opened but not yet sent are in the Hello below (it lists every live session).
    this.registryOpenedBatches = false;
    this.registryStreamAuth = false;
    clearImmediate(this.openedFlush);
    this.openedFlush = undefined;
    this.opened = [];
    let over = false;
    const down = (why: string) => {
      if (over) return;
      over = true;
      clearTimeout(this.helloTimer);
      if (this.call === call) this.call = undefined;
      // Checks sent on this stream get no answer now: their devices are told the registry is unreachable.
      this.streamAuths.failAll(new Error(why));
      this.streamDown(why);
    };
    call.on("data", (m: RegistryMessage) => this.onMessage(m));
    call.on("error", (err: grpc.ServiceError) => down(err.details || err.message));
    call.on("end", () => {
      call.end();
      down("registry ended the stream");
    });
    call.on("status", (s: grpc.StatusObject) => down(`stream closed (${s.code}) ${s.details}`));
    if (this.endpoints.addresses.length > 1) {
      clearTimeout(this.helloTimer);
      this.helloTimer = setTimeout(() => {
        if (this.call !== call || this.linkState !== "connecting") return;
        down(`no HelloAck within ${this.opts.helloTimeoutMs ?? 3000} ms`);
        call.cancel();
      }, this.opts.helloTimeoutMs ?? 3000);
    }
    this.send(helloMessage(this.instanceId, this.opts.protocol, this.opts.version ?? "0.0.0", this.live.all()));
    for (const p of this.buffer.pending()) this.send(uplinkMessage(p.seq, p.uplink));
    const results = this.unsentResults;
    this.unsentResults = [];
    for (const r of results) this.send(r);
  }

  private streamDown(why: string): void {
    if (this.linkState === "closed") return;
    this.linkState = "connecting";
    this.metrics.registryConnected(false);
    const from = this.endpoints.current;
    const delay = this.endpoints.failed();
    const details = {
      reason: why,
      node: from,
      next: this.endpoints.current,
      retryInMs: delay,
      pendingUplinks: this.buffer.size,
    };
    this.outage.failed(details);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.linkState !== "closed") this.openStream();
    }, delay);
  }

  private onMessage(m: RegistryMessage): void {
    const k = m.kind;
    switch (k.case) {
      case "helloAck":
        clearTimeout(this.helloTimer);
        this.linkState = "connected";
        this.registryBatches = k.value.uplinkBatches;
        this.registryResultBatches = k.value.downlinkResultBatches;
        this.registryOpenedBatches = k.value.sessionOpenedBatches;
        this.registryStreamAuth = k.value.streamAuthentication;
        this.metrics.registryConnected(true);
        this.outage.up({
          node: k.value.nodeId,
          address: this.endpoints.current,
          sessions: this.live.size,
          replayed: this.buffer.size,
        });
        return;
      case "uplinkAck": {
        const now = performance.now();
        let acked = 0;
        for (const seq of k.value.seqs) {
          const addedAt = this.buffer.ack(Number(seq));
          if (addedAt === undefined) continue;
          acked++;
          this.metrics.ackLatency((now - addedAt) / 1000);
        }
        if (acked > 0) this.metrics.uplink("acked", acked);
        for (const r of k.value.rejected) {
          this.log.warn({ seq: Number(r.seq), reason: r.reason }, "registry rejected uplink");
          if (this.buffer.reject(Number(r.seq), r.reason)) this.metrics.uplink("rejected");
        }
        this.metrics.bufferDepth(this.buffer.size, this.buffer.waitingCount);
        return;
      }
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
        this.streamAuths.settle(Number(k.value.id), k.value);
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
    const result = downlinkResultValue(downlink.id, outcome.status, outcome.message ?? "");
    if (this.call && this.registryResultBatches) {
      // Sent with the others of this turn of the event loop (a group command's acknowledgements come in bursts).
      if (this.results.push(result) >= BATCH_MAX_ITEMS) this.flushResults();
      else this.resultsFlush ??= setImmediate(() => this.flushResults());
      return;
    }
    const message = downlinkResultMessage(result);
    if (!this.send(message)) this.keepUnsent(message);
  }

  private flushResults(): void {
    clearImmediate(this.resultsFlush);
    this.resultsFlush = undefined;
    const results = this.results.splice(0);
    if (results.length > 0 && !this.send(downlinkResultsMessage(results)))
      for (const r of results) this.keepUnsent(downlinkResultMessage(r));
  }

  /** A result that found no stream: sent after the next Hello (the oldest dropped past the buffer's limit). */
  private keepUnsent(message: AdapterMessage): void {
    this.unsentResults.push(message);
    if (this.unsentResults.length > this.buffer.limit) this.unsentResults.shift();
  }

  private safely(what: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err }, `${what} handler failed`);
    }
  }
}

/** The `iot_adapter_uplinks_total` outcome of a refused or failed uplink. */
function uplinkOutcome(err: unknown): string {
  const code = err instanceof AdapterError ? err.code : undefined;
  if (code === "BUFFER_FULL") return "buffer_full";
  if (code === "MESSAGE_TOO_LARGE") return "too_large";
  if (code === "UPLINK_REJECTED") return "rejected";
  return "closed";
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
    token: config.registryToken,
  });
}
