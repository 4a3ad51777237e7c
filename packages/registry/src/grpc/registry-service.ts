import { randomUUID } from "node:crypto";
import {
  AuthResult,
  AuthenticateResponseSchema,
  create,
  grpc,
  registryServiceDefinition,
  channelOptions,
  type AuthenticateRequest,
  type AuthenticateResponse,
  type AdapterMessage,
  type RegistryMessage,
} from "@iot/proto";
import { authenticateDevice } from "../domain/device-auth.js";
import { authOutcomeToProto, credentialsFromProto } from "./convert.js";
import { serveConnect, type ConnectDeps } from "./connect-stream.js";

/** Handles Authenticate: every answer is a response; only a broken store is a gRPC error. */
async function authenticate(req: AuthenticateRequest, deps: ConnectDeps): Promise<AuthenticateResponse> {
  const credentials = credentialsFromProto(req.credentials);
  if (!credentials) {
    return create(AuthenticateResponseSchema, { result: AuthResult.NOT_ALLOWED, message: "credential kind not supported" });
  }
  const outcome = await authenticateDevice(deps.db, { protocol: req.protocol, credentials, clientIp: req.clientIp });
  if (!outcome.ok) return create(AuthenticateResponseSchema, { ...authOutcomeToProto(outcome), sessionId: "" });
  const sessionId = randomUUID();
  deps.sessions.issued(sessionId, outcome.device.deviceIntId);
  return create(AuthenticateResponseSchema, { ...authOutcomeToProto(outcome), sessionId });
}

/** The RegistryService implementation for a grpc-js server. */
export function registryHandlers(deps: ConnectDeps): grpc.UntypedServiceImplementation {
  return {
    authenticate(call: grpc.ServerUnaryCall<AuthenticateRequest, AuthenticateResponse>, callback: grpc.sendUnaryData<AuthenticateResponse>) {
      authenticate(call.request, deps).then(
        (res) => callback(null, res),
        (err: unknown) => {
          deps.logger.error({ err }, "authenticate failed");
          callback({ code: grpc.status.UNAVAILABLE, details: "registry store unavailable" });
        },
      );
    },
    connect: ((call) => serveConnect(call, deps)) as grpc.handleBidiStreamingCall<AdapterMessage, RegistryMessage>,
  };
}

/**
 * Starts the gRPC server on host:port (port 0 = any free port) and resolves
 * with the bound port. Adapters reach the registry only through this.
 */
export async function startGrpcServer(deps: ConnectDeps, host: string, port: number): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server(channelOptions);
  server.addService(registryServiceDefinition, registryHandlers(deps));
  const bound = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
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
