/**
 * How an adapter process gets its registry client: the gRPC client, configured from the settings every adapter
 * shares. Adapters and their tests depend on the RegistryClient interface; only these make the real one.
 */
import type { Logger } from "pino";
import type { AdapterConfig } from "./config.js";
import { GrpcRegistryClient } from "./grpc-registry-client.js";
import type { GrpcRegistryClientOptions } from "./grpc-registry-client-options.js";
import type { ProtocolName, RegistryClient } from "./registry-client.js";

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
