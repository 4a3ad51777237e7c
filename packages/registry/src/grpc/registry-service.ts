import { randomUUID } from "node:crypto";
import {
  AuthResult,
  AuthenticateBatchResponseSchema,
  AuthenticateResponseSchema,
  IssueListenerCertificateResponseSchema,
  LoraActivateResponseSchema,
  LoraActivateResult,
  create,
  grpc,
  registryServiceDefinition,
  channelOptions,
  type AuthenticateBatchRequest,
  type AuthenticateBatchResponse,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type IssueListenerCertificateRequest,
  type IssueListenerCertificateResponse,
  type LoraActivateRequest,
  type LoraActivateResponse,
  type AdapterMessage,
  type RegistryMessage,
} from "@iot/proto";
import { serviceCa, signListenerCsr } from "../certs/ca.js";
import { checkListenerHosts } from "../certs/listener-hosts.js";
import {
  authenticateDevice,
  authenticateTokens,
  type AuthOutcome,
  type TokenAuthRequest,
} from "../domain/device-auth.js";
import { tenantLimitsOf, type TenantLimits } from "../domain/tenants.js";
import { activateLoraSession } from "../lora/lora-sessions.js";
import { RegistryError } from "../errors.js";
import { admittedAnswer, authOutcomeToProto, credentialsFromProto } from "./convert.js";
import { serveConnect, type ConnectDeps } from "./connect-stream.js";
import { requireAdapterToken } from "./adapter-token.js";
import { mapConcurrently } from "./map-concurrently.js";
import type { TenantConnectionsElsewhere } from "../sessions/session-table.js";

/** What the registry service needs: the Connect stream's dependencies and the host listener certificates may name. */
export interface RegistryServiceDeps extends ConnectDeps {
  /** IOT_PUBLIC_HOST: with the loopback names, the only names IssueListenerCertificate signs. */
  publicHost: string;
}

/** A device whose credentials passed, with what admitting it needs; or the final answer when they did not. */
type Verified =
  | { answer: AuthenticateResponse }
  | {
      outcome: Extract<AuthOutcome, { ok: true }>;
      limits: TenantLimits;
      elsewhere: TenantConnectionsElsewhere | undefined;
    };

/** Devices of one AuthenticateBatch with other than token credentials checked at once (see mapConcurrently). */
const VERIFY_CONCURRENCY = 8;

/**
 * The asynchronous part of Authenticate(Batch), for every request in order: credentials (token credentials of the
 * whole batch together, see authenticateTokens), the tenants' limits (one query for the batch) and, for a tenant with
 * a connection limit, its connections on other nodes.
 */
async function verify(reqs: readonly AuthenticateRequest[], deps: ConnectDeps): Promise<Verified[]> {
  const asked = reqs.map((req) => ({
    protocol: req.protocol,
    credentials: credentialsFromProto(req.credentials),
    clientIp: req.clientIp,
  }));
  const outcomes = new Array<AuthOutcome | undefined>(reqs.length);
  const tokens: TokenAuthRequest[] = [];
  const tokenAt: number[] = [];
  const others: number[] = [];
  asked.forEach((a, i) => {
    if (a.credentials?.kind === "token") {
      tokens.push({ ...a, credentials: a.credentials });
      tokenAt.push(i);
    } else if (a.credentials) others.push(i);
  });
  if (tokens.length > 0) (await authenticateTokens(deps.db, tokens)).forEach((o, k) => (outcomes[tokenAt[k]!] = o));
  await mapConcurrently(others, VERIFY_CONCURRENCY, async (i) => {
    const a = asked[i]!;
    outcomes[i] = await authenticateDevice(deps.db, { ...a, credentials: a.credentials! });
  });
  const tenants = outcomes.flatMap((o) => (o?.ok ? [o.device.tenantId] : []));
  const limitsOf = await tenantLimitsOf(deps.db, tenants);
  // Several nodes: the connections of tenants with a limit on the other nodes count too.
  const limited = outcomes.flatMap((o) =>
    o?.ok && limitsOf.get(o.device.tenantId)!.maxConnections > 0 ? [o.device] : [],
  );
  const elsewhereOf = limited.length > 0 ? await deps.adapterRows?.tenantConnectionsElsewhere(limited) : undefined;
  return outcomes.map((outcome): Verified => {
    if (!outcome)
      return {
        answer: create(AuthenticateResponseSchema, {
          result: AuthResult.NOT_ALLOWED,
          message: "credential kind not supported",
        }),
      };
    if (!outcome.ok)
      return { answer: create(AuthenticateResponseSchema, { ...authOutcomeToProto(outcome), sessionId: "" }) };
    const { tenantId, deviceIntId } = outcome.device;
    return { outcome, limits: limitsOf.get(tenantId)!, elsewhere: elsewhereOf?.get(deviceIntId) };
  });
}

/**
 * The synchronous part: checks the tenant's connection limit and records the session in one step, so concurrent
 * authentications cannot both take the last place, and a batch admits its devices in request order.
 */
function admit(verified: Verified, deps: ConnectDeps): AuthenticateResponse {
  if ("answer" in verified) return verified.answer;
  const { outcome, limits, elsewhere } = verified;
  const { tenantId, deviceIntId } = outcome.device;
  if (!deps.sessions.admits(tenantId, deviceIntId, limits.maxConnections, Date.now(), elsewhere)) {
    deps.logger.warn(
      { tenantId, device: deviceIntId, maxConnections: limits.maxConnections },
      "connection refused: tenant connection limit reached",
    );
    return create(AuthenticateResponseSchema, {
      result: AuthResult.QUOTA_EXCEEDED,
      message: `tenant connection limit (${limits.maxConnections}) reached`,
      sessionId: "",
    });
  }
  const sessionId = randomUUID();
  deps.sessions.issued(sessionId, deviceIntId, tenantId);
  return admittedAnswer(outcome, sessionId, { tenantId, maxUplinkRate: limits.maxUplinkRate });
}

/** Handles Authenticate: every answer is a response; only a broken store is a gRPC error. */
async function authenticate(req: AuthenticateRequest, deps: ConnectDeps): Promise<AuthenticateResponse> {
  const [verified] = await verify([req], deps);
  return admit(verified!, deps);
}

/** Most requests one AuthenticateBatch may carry (registry.proto): a bound on the work one call asks for. */
export const AUTHENTICATE_BATCH_MAX = 1000;

/** Handles AuthenticateBatch: each request answered as Authenticate would, in order; a broken store fails the call. */
async function authenticateBatch(req: AuthenticateBatchRequest, deps: ConnectDeps): Promise<AuthenticateBatchResponse> {
  if (req.requests.length > AUTHENTICATE_BATCH_MAX)
    throw new RegistryError(
      "FORM_INVALID",
      undefined,
      `at most ${AUTHENTICATE_BATCH_MAX} requests per AuthenticateBatch`,
    );
  const verified = await verify(req.requests, deps);
  const responses = verified.map((v) => admit(v, deps));
  return create(AuthenticateBatchResponseSchema, { responses });
}

/**
 * Handles IssueListenerCertificate: signs an adapter's TLS listener CSR with
 * the service CA and answers the CA too, which the adapter needs to verify
 * device certificates on its mutual-TLS listener. Only for the public host
 * and loopback names.
 */
async function issueListenerCertificate(
  req: IssueListenerCertificateRequest,
  deps: RegistryServiceDeps,
): Promise<IssueListenerCertificateResponse> {
  checkListenerHosts(req.hostnames, deps.publicHost);
  const ca = await serviceCa(deps.db);
  const certPem = await signListenerCsr(ca, req.csrPem, req.hostnames);
  deps.logger.info({ adapter: req.adapterInstanceId, hostnames: req.hostnames }, "listener certificate issued");
  return create(IssueListenerCertificateResponseSchema, { certPem, caPem: ca.certPem });
}

const activateResults = {
  OK: LoraActivateResult.OK,
  DEV_NONCE_REUSED: LoraActivateResult.DEV_NONCE_REUSED,
  DEV_ADDR_TAKEN: LoraActivateResult.DEV_ADDR_TAKEN,
  NOT_ALLOWED: LoraActivateResult.NOT_ALLOWED,
} as const;

/** Handles LoraActivate: records a joined OTAA device's new session (see activateLoraSession). */
async function loraActivate(req: LoraActivateRequest, deps: ConnectDeps): Promise<LoraActivateResponse> {
  const s = req.session;
  const key = /^[0-9A-Fa-f]{32}$/;
  if (!s || !/^[0-9A-Fa-f]{8}$/.test(s.devAddr) || !key.test(s.nwkSKey) || !key.test(s.appSKey))
    return create(LoraActivateResponseSchema, { result: LoraActivateResult.NOT_ALLOWED, message: "malformed session" });
  const r = await activateLoraSession(deps.db, Number(req.deviceIntId), req.devNonce, s);
  if (r.result === "OK")
    deps.logger.info({ device: Number(req.deviceIntId), devAddr: s.devAddr }, "LoRa device joined");
  return create(LoraActivateResponseSchema, { result: activateResults[r.result], message: r.message });
}

/** A refused request is INVALID_ARGUMENT or PERMISSION_DENIED with its reason; anything else means the store failed. */
function grpcError(err: unknown): Partial<grpc.StatusObject> {
  if (err instanceof RegistryError && err.code === "FORM_INVALID")
    return { code: grpc.status.INVALID_ARGUMENT, details: err.message };
  if (err instanceof RegistryError && err.code === "PERMISSION_DENIED")
    return { code: grpc.status.PERMISSION_DENIED, details: err.message };
  return { code: grpc.status.UNAVAILABLE, details: "registry store unavailable" };
}

/** The RegistryService implementation for a grpc-js server. */
export function registryHandlers(deps: RegistryServiceDeps): grpc.UntypedServiceImplementation {
  return {
    authenticate(
      call: grpc.ServerUnaryCall<AuthenticateRequest, AuthenticateResponse>,
      callback: grpc.sendUnaryData<AuthenticateResponse>,
    ) {
      authenticate(call.request, deps).then(
        (res) => callback(null, res),
        (err: unknown) => {
          deps.logger.error({ err }, "authenticate failed");
          callback({ code: grpc.status.UNAVAILABLE, details: "registry store unavailable" });
        },
      );
    },
    authenticateBatch(
      call: grpc.ServerUnaryCall<AuthenticateBatchRequest, AuthenticateBatchResponse>,
      callback: grpc.sendUnaryData<AuthenticateBatchResponse>,
    ) {
      authenticateBatch(call.request, deps).then(
        (res) => callback(null, res),
        (err: unknown) => {
          const status = grpcError(err);
          if (status.code === grpc.status.UNAVAILABLE) deps.logger.error({ err }, "authenticate batch failed");
          callback(status);
        },
      );
    },
    issueListenerCertificate(
      call: grpc.ServerUnaryCall<IssueListenerCertificateRequest, IssueListenerCertificateResponse>,
      callback: grpc.sendUnaryData<IssueListenerCertificateResponse>,
    ) {
      issueListenerCertificate(call.request, deps).then(
        (res) => callback(null, res),
        (err: unknown) => {
          const status = grpcError(err);
          if (status.code !== grpc.status.UNAVAILABLE)
            deps.logger.warn(
              { adapter: call.request.adapterInstanceId, reason: status.details },
              "listener certificate refused",
            );
          else deps.logger.error({ err }, "listener certificate failed");
          callback(status);
        },
      );
    },
    loraActivate(
      call: grpc.ServerUnaryCall<LoraActivateRequest, LoraActivateResponse>,
      callback: grpc.sendUnaryData<LoraActivateResponse>,
    ) {
      loraActivate(call.request, deps).then(
        (res) => callback(null, res),
        (err: unknown) => {
          deps.logger.error({ err }, "LoRa activation failed");
          callback({ code: grpc.status.UNAVAILABLE, details: "registry store unavailable" });
        },
      );
    },
    connect: ((call) => serveConnect(call, deps)) as grpc.handleBidiStreamingCall<AdapterMessage, RegistryMessage>,
  };
}

/**
 * Starts the gRPC server on host:port (port 0 = any free port) and resolves
 * with the bound port. Adapters reach the registry only through this; with an
 * `adapterToken`, only callers presenting it.
 */
export async function startGrpcServer(
  deps: RegistryServiceDeps,
  host: string,
  port: number,
  adapterToken?: string,
): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server(channelOptions);
  server.addService(registryServiceDefinition, requireAdapterToken(registryHandlers(deps), adapterToken));
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return { port: bound, server };
}

/** Stops accepting calls and ends live streams after `graceMs`. */
export function stopGrpcServer(server: grpc.Server, graceMs = 2000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
