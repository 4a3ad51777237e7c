/**
 * The registry client's gRPC side: one grpc-js client per central node (its channel, credentials, token and
 * keepalive) and the unary calls made on it besides the device checks — the listener certificate (retried until the
 * registry answers) and LoRaWAN activations.
 */
import {
  RegistryGrpcClient,
  channelOptions,
  failoverKeepalive,
  grpc,
  type AdapterMessage,
  type AuthenticateBatchRequest,
  type AuthenticateBatchResponse,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type EncodedAdapterMessage,
  type IssueListenerCertificateRequest,
  type IssueListenerCertificateResponse,
  type LoraActivateRequest,
  type LoraActivateResponse,
  type RegistryMessage,
  LoraActivateResult as LoraActivateCode,
} from "@iot/proto";
import type { Logger } from "pino";
import { Backoff, type BackoffOptions } from "@iot/config";
import { AdapterError } from "./errors.js";
import type { LoraActivateResult } from "./lora-types.js";
import type { ListenerCertificate } from "./registry-client.js";

/** The Connect stream; uplinks go as bytes encoded beforehand (the proto package's serializer passes them on). */
export type ConnectCall = grpc.ClientDuplexStream<AdapterMessage | EncodedAdapterMessage, RegistryMessage>;

/** The answer callback of a unary call. */
type Answer<Res> = (err: grpc.ServiceError | null, res?: Res) => void;

/** The RPCs of the generic grpc-js client, typed. */
export interface RawRegistryClient {
  authenticate(
    req: AuthenticateRequest,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: Answer<AuthenticateResponse>,
  ): grpc.ClientUnaryCall;
  authenticateBatch(
    req: AuthenticateBatchRequest,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: Answer<AuthenticateBatchResponse>,
  ): grpc.ClientUnaryCall;
  issueListenerCertificate(
    req: IssueListenerCertificateRequest,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: Answer<IssueListenerCertificateResponse>,
  ): grpc.ClientUnaryCall;
  loraActivate(
    req: LoraActivateRequest,
    md: grpc.Metadata,
    options: grpc.CallOptions,
    cb: Answer<LoraActivateResponse>,
  ): grpc.ClientUnaryCall;
  connect(): ConnectCall;
  close(): void;
}

/** How the gRPC clients of the nodes connect; times in ms. */
export interface ChannelSettings {
  /** Reconnect delays of grpc-js's own channel (its first and longest). */
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
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

function channel(address: string): { target: string; credentials: grpc.ChannelCredentials } {
  const bare = address.replace(/\/+$/, "");
  if (bare.startsWith("https://")) return { target: bare.slice(8), credentials: grpc.credentials.createSsl() };
  return { target: bare.replace(/^http:\/\//, ""), credentials: grpc.credentials.createInsecure() };
}

/**
 * One gRPC client per node address, in order (an `https://` prefix selects TLS). With several nodes, a node that
 * vanished silently must be left within the failover bound, so their keepalive is `failoverKeepalive`.
 */
export function registryGrpcClients(addresses: readonly string[], settings: ChannelSettings): RawRegistryClient[] {
  return addresses.map((address) => {
    const { target, credentials } = channel(address);
    return new RegistryGrpcClient(target, credentials, {
      ...channelOptions,
      ...(addresses.length > 1 ? failoverKeepalive : {}),
      "grpc.initial_reconnect_backoff_ms": settings.initialBackoffMs,
      "grpc.max_reconnect_backoff_ms": settings.maxBackoffMs,
      ...(settings.token ? { interceptors: [withToken(settings.token)] } : {}),
    }) as unknown as RawRegistryClient;
  });
}

/**
 * One unary call with a deadline `timeoutMs` from now; rejects with the gRPC error (its details as message, its
 * `code` kept).
 */
export function unaryCall<Res>(
  timeoutMs: number,
  start: (md: grpc.Metadata, options: grpc.CallOptions, cb: Answer<Res>) => void,
): Promise<Res> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) =>
    start(new grpc.Metadata(), { deadline }, (err, res) => {
      if (err) reject(Object.assign(new Error(err.details || err.message), { code: err.code }));
      else if (!res) reject(new Error("no answer"));
      else resolve(res);
    }),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** gRPC codes that mean "the registry could not answer now": asking again later may work. */
const RETRYABLE = new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED]);
/** Deadline of one IssueListenerCertificate or LoraActivate call, ms (the first may create the service CA). */
const ISSUE_TIMEOUT_MS = 10_000;

/** The unary calls' side of the client they are made for. */
export interface UnaryCallContext {
  /** The gRPC client of the node in use: unary calls go where the stream goes. */
  readonly raw: () => RawRegistryClient;
  /** The client was closed: stop retrying. */
  readonly closed: () => boolean;
  readonly log: Logger;
}

/**
 * Asks the registry to sign the adapter's listener certificate, again after each retryable failure (backoff
 * `backoff`) until it answers.
 * @throws AdapterError REQUEST_REJECTED when the registry refuses, CLIENT_CLOSED when the client closes first.
 */
export async function issueListenerCertificate(
  ctx: UnaryCallContext,
  req: IssueListenerCertificateRequest,
  backoffOptions: BackoffOptions,
): Promise<ListenerCertificate> {
  const backoff = new Backoff(backoffOptions);
  for (;;) {
    if (ctx.closed())
      throw new AdapterError("CLIENT_CLOSED", "registry client closed before the listener certificate was issued");
    const answer = await new Promise<{ err: grpc.ServiceError | null; res?: IssueListenerCertificateResponse }>(
      (resolve) => {
        try {
          ctx
            .raw()
            .issueListenerCertificate(
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
        {
          cause: err,
        },
      );
    }
    const delay = backoff.next();
    ctx.log.warn(
      { reason: err.details || err.message, retryInMs: delay },
      "registry not reachable for the listener certificate; retrying",
    );
    await sleep(delay);
  }
}

const LORA_ACTIVATE_RESULTS: Partial<Record<LoraActivateCode, LoraActivateResult>> = {
  [LoraActivateCode.OK]: "OK",
  [LoraActivateCode.DEV_NONCE_REUSED]: "DEV_NONCE_REUSED",
  [LoraActivateCode.DEV_ADDR_TAKEN]: "DEV_ADDR_TAKEN",
  [LoraActivateCode.NOT_ALLOWED]: "NOT_ALLOWED",
};

/** One LoraActivate call; a registry that cannot answer gives UNAVAILABLE (never rejects). */
export function loraActivate(
  raw: RawRegistryClient,
  req: LoraActivateRequest,
): Promise<{ result: LoraActivateResult; message: string }> {
  return new Promise((resolve) => {
    try {
      raw.loraActivate(req, new grpc.Metadata(), { deadline: Date.now() + ISSUE_TIMEOUT_MS }, (err, res) =>
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
