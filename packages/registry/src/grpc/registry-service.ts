import {
  AuthenticateBatchResponseSchema,
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
import { activateLoraSession } from "../lora/lora-sessions.js";
import { RegistryError } from "../errors.js";
import { authenticate, authenticateAll } from "./authenticate.js";
import { serveConnect, type ConnectDeps } from "./connect-stream.js";
import { SessionWrites } from "../sessions/mqtt-session-writes.js";
import { requireAdapterToken } from "./adapter-token.js";

/** What the registry service needs: the Connect stream's dependencies and the host listener certificates may name. */
export interface RegistryServiceDeps extends ConnectDeps {
  /** IOT_PUBLIC_HOST: with the loopback names, the only names IssueListenerCertificate signs. */
  publicHost: string;
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
  const v11 = s.sNwkSIntKey
    ? {
        fNwkSIntKey: s.fNwkSIntKey,
        sNwkSIntKey: s.sNwkSIntKey,
        nwkSEncKey: s.nwkSEncKey,
        joinNonce: s.joinNonce,
        rejoin: s.rejoin,
      }
    : undefined;
  if (v11 && ![v11.fNwkSIntKey, v11.sNwkSIntKey, v11.nwkSEncKey].every((k) => key.test(k)))
    return create(LoraActivateResponseSchema, { result: LoraActivateResult.NOT_ALLOWED, message: "malformed session" });
  const session = { devAddr: s.devAddr, nwkSKey: s.nwkSKey, appSKey: s.appSKey, ...(v11 ? { lorawan11: v11 } : {}) };
  const r = await activateLoraSession(deps.db, Number(req.deviceIntId), req.devNonce, session);
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
export function registryHandlers(given: RegistryServiceDeps): grpc.UntypedServiceImplementation {
  // One writer of persistent MQTT session state for every stream and call (shared transactions).
  const deps = { ...given, mqttSessionWrites: given.mqttSessionWrites ?? new SessionWrites(given.db) };
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
      authenticateAll(call.request.requests, deps).then(
        (responses) => callback(null, create(AuthenticateBatchResponseSchema, { responses })),
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
