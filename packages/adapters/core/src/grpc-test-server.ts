/**
 * A scriptable in-process RegistryService for the gRPC client's tests (not
 * exported from the package): records every adapter message, answers Hello,
 * and lets the test ack uplinks, push messages and drop streams. Built with
 * the registry's channel options (message size limits), as the real server.
 */
import {
  AuthResult,
  AuthenticateBatchResponseSchema,
  AuthenticateResponseSchema,
  IssueListenerCertificateResponseSchema,
  RegistryMessageSchema,
  channelOptions,
  create,
  grpc,
  registryServiceDefinition,
  type AdapterMessage,
  type AuthenticateBatchRequest,
  type AuthenticateBatchResponse,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type IssueListenerCertificateRequest,
  type IssueListenerCertificateResponse,
  type RegistryMessage,
} from "@iot/proto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { createServer } from "node:net";
import pino from "pino";
import { afterEach } from "vitest";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import type { GrpcRegistryClientOptions } from "./grpc-registry-client-options.js";
import type { DeviceSession, Uplink } from "./registry-client.js";

type ServerCall = grpc.ServerDuplexStream<AdapterMessage, RegistryMessage>;

/** One accepted Connect stream and what arrived on it. */
interface TestStream {
  readonly call: ServerCall;
  readonly received: AdapterMessage[];
}

/** The running test server. */
export interface TestRegistryServer {
  readonly port: number;
  readonly streams: TestStream[];
  /** When true (default), every uplink is acked as soon as it arrives. */
  autoAck: boolean;
  /** When false, Hello is never answered (a stuck node); default true. */
  answerHello: boolean;
  /** When true, a stream is ended right after its HelloAck (a node whose database is down); default false. */
  endAfterHello: boolean;
  /** Whether HelloAck says this registry takes UplinkBatch messages (default false, as an older registry). */
  uplinkBatches: boolean;
  /** Whether HelloAck says this registry takes DownlinkResultBatch messages (default false, as an older registry). */
  downlinkResultBatches: boolean;
  /** Whether HelloAck says this registry takes SessionOpenedBatch messages (default false, as an older registry). */
  sessionOpenedBatches: boolean;
  /** When false, AuthenticateBatch answers UNIMPLEMENTED, as an older registry (default true). */
  authenticateBatches: boolean;
  /** Whether HelloAck says this registry answers AuthenticateCall on the stream (default false, as an older one). */
  streamAuthentication: boolean;
  /** When false, AuthenticateCalls on the stream are counted but never answered (a stuck check); default true. */
  answerStreamAuth: boolean;
  /** Calls received: Authenticate, AuthenticateBatch, AuthenticateCall on the stream, and the requests all carried. */
  readonly authCalls: { single: number; batches: number; streamed: number; requests: number };
  /** Answers IssueListenerCertificate: PEMs, or a gRPC status error (default: UNIMPLEMENTED). */
  issueListenerCertificate: (
    req: IssueListenerCertificateRequest,
  ) => { certPem: string; caPem: string } | Partial<grpc.StatusObject>;
  /** The newest stream. */
  latest(): TestStream | undefined;
  /** Sends a registry message on the newest stream. */
  push(kind: MessageInitShape<typeof RegistryMessageSchema>["kind"]): void;
  stop(): Promise<void>;
}

/** A successful Authenticate answer for token "good", BLOCKED for "blocked", else BAD_CREDENTIALS. */
function answer(req: AuthenticateRequest): AuthenticateResponse {
  const token = req.credentials?.kind.case === "token" ? req.credentials.kind.value.token : "";
  if (token === "blocked")
    return create(AuthenticateResponseSchema, { result: AuthResult.BLOCKED, message: "blocked" });
  if (token === "quota")
    return create(AuthenticateResponseSchema, { result: AuthResult.QUOTA_EXCEEDED, message: "limit reached" });
  if (token !== "good" && token !== "limited")
    return create(AuthenticateResponseSchema, { result: AuthResult.BAD_CREDENTIALS, message: "bad" });
  return create(AuthenticateResponseSchema, {
    result: AuthResult.OK,
    sessionId: "sess-1",
    device: {
      tenantId: "t1",
      deviceIntId: 42n,
      deviceId: "dev-42",
      mountpoint: "t1/42/",
      defaultDownlinkTopic: "inbox",
    },
    policies: [{ id: 7n, topic: "secret/#", access: 3, allow: false }],
    subscriptions: [{ topic: "config/#", qos: 1 }],
    // token "limited": tenant t1 may send 2 uplinks per second.
    tenantLimits: { tenantId: "t1", maxUplinkRate: token === "limited" ? 2 : 0 },
  });
}

/** Starts a server on 127.0.0.1 (port 0 picks a free one). */
export async function startTestRegistry(port = 0): Promise<TestRegistryServer> {
  const server = new grpc.Server(channelOptions);
  const streams: TestStream[] = [];
  const state = {
    port: 0,
    streams,
    autoAck: true,
    answerHello: true,
    endAfterHello: false,
    uplinkBatches: false,
    downlinkResultBatches: false,
    sessionOpenedBatches: false,
    authenticateBatches: true,
    streamAuthentication: false,
    answerStreamAuth: true,
    authCalls: { single: 0, batches: 0, streamed: 0, requests: 0 },
    issueListenerCertificate: (
      _req: IssueListenerCertificateRequest,
    ): { certPem: string; caPem: string } | Partial<grpc.StatusObject> => ({
      code: grpc.status.UNIMPLEMENTED,
      details: "not implemented",
    }),
    latest: () => streams.at(-1),
    push(kind: MessageInitShape<typeof RegistryMessageSchema>["kind"]) {
      streams.at(-1)?.call.write(create(RegistryMessageSchema, { kind }));
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
  server.addService(registryServiceDefinition, {
    authenticate: (
      call: grpc.ServerUnaryCall<AuthenticateRequest, AuthenticateResponse>,
      cb: grpc.sendUnaryData<AuthenticateResponse>,
    ) => {
      state.authCalls.single++;
      state.authCalls.requests++;
      cb(null, answer(call.request));
    },
    authenticateBatch: (
      call: grpc.ServerUnaryCall<AuthenticateBatchRequest, AuthenticateBatchResponse>,
      cb: grpc.sendUnaryData<AuthenticateBatchResponse>,
    ) => {
      if (!state.authenticateBatches) return cb({ code: grpc.status.UNIMPLEMENTED, details: "unknown method" });
      state.authCalls.batches++;
      state.authCalls.requests += call.request.requests.length;
      cb(null, create(AuthenticateBatchResponseSchema, { responses: call.request.requests.map(answer) }));
    },
    issueListenerCertificate: (
      call: grpc.ServerUnaryCall<IssueListenerCertificateRequest, IssueListenerCertificateResponse>,
      cb: grpc.sendUnaryData<IssueListenerCertificateResponse>,
    ) => {
      const out = state.issueListenerCertificate(call.request);
      if ("certPem" in out) cb(null, create(IssueListenerCertificateResponseSchema, out));
      else cb(out);
    },
    connect: (call: ServerCall) => {
      const stream: TestStream = { call, received: [] };
      streams.push(stream);
      call.on("data", (m: AdapterMessage) => {
        stream.received.push(m);
        if (m.kind.case === "hello" && state.answerHello)
          call.write(
            create(RegistryMessageSchema, {
              kind: {
                case: "helloAck",
                value: {
                  nodeId: "test-node",
                  uplinkBatches: state.uplinkBatches,
                  downlinkResultBatches: state.downlinkResultBatches,
                  sessionOpenedBatches: state.sessionOpenedBatches,
                  streamAuthentication: state.streamAuthentication,
                },
              },
            }),
          );
        if (m.kind.case === "authenticate") {
          state.authCalls.streamed++;
          state.authCalls.requests += m.kind.value.requests.length;
          const { id, requests } = m.kind.value;
          if (state.answerStreamAuth)
            call.write(
              create(RegistryMessageSchema, {
                kind: { case: "authenticateAnswer", value: { id, responses: requests.map(answer) } },
              }),
            );
        }
        if (m.kind.case === "hello" && state.endAfterHello)
          call.emit("error", { code: grpc.status.UNAVAILABLE, details: "database unavailable" });
        const uplinks =
          m.kind.case === "uplink" ? [m.kind.value] : m.kind.case === "uplinkBatch" ? m.kind.value.uplinks : [];
        if (uplinks.length > 0 && state.autoAck) {
          call.write(
            create(RegistryMessageSchema, { kind: { case: "uplinkAck", value: { seqs: uplinks.map((u) => u.seq) } } }),
          );
        }
      });
      call.on("end", () => call.end());
      call.on("error", () => undefined);
    },
  });
  state.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return state;
}

/** A device session the registry client tests announce. */
export const TEST_SESSION: DeviceSession = {
  sessionId: "s1",
  device: {
    tenantId: "t1",
    deviceIntId: 42,
    deviceId: "dev-42",
    deviceName: "d",
    productIntId: 1,
    productId: "p",
    mountpoint: "t1/42/",
    defaultDownlinkTopic: "inbox",
    deviceType: 1,
    isGateway: false,
    autoSub: false,
  },
  policies: [],
  subscriptions: [],
};

/** An uplink of TEST_SESSION's device on `topic` (the topic is its payload too). */
export const testUplink = (topic: string): Uplink => ({
  sessionId: "s1",
  tenantId: "t1",
  deviceIntId: 42,
  topic,
  payload: Buffer.from(topic),
  qos: 1,
  clientIp: "10.0.0.1",
  receivedAtMs: 1,
});

/** The kinds of the messages stream `i` of a test registry received, in order. */
export const streamKinds = (s: TestRegistryServer, i: number) => s.streams[i]!.received.map((m) => m.kind.case);

/** The seqs of the single uplinks stream `i` of a test registry received, in order. */
export const streamSeqs = (s: TestRegistryServer, i: number) =>
  s.streams[i]!.received.flatMap((m) => (m.kind.case === "uplink" ? [Number(m.kind.value.seq)] : []));

/** A port nothing listens on now: a registry that is down (or not yet up). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * A registry client test file's cleanups, run newest first after each test; `registry()`, a test registry that is
 * stopped among them; and `client()`, an MQTT adapter's client of the registry at `port` that reconnects fast (50 ms
 * doubling to 200 ms, unless `options` say otherwise), closed among them.
 */
export function useTestRegistries() {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const registry = async (port = 0): Promise<TestRegistryServer> => {
    const s = await startTestRegistry(port);
    cleanups.push(() => s.stop());
    return s;
  };
  const client = (port: number, options: Partial<GrpcRegistryClientOptions> = {}): GrpcRegistryClient => {
    const c = new GrpcRegistryClient({
      address: `127.0.0.1:${port}`,
      protocol: "mqtt",
      logger: pino({ level: "silent" }),
      backoff: { initialMs: 50, maxMs: 200 },
      ...options,
    });
    cleanups.push(() => c.close());
    return c;
  };
  return { cleanups, registry, client };
}
