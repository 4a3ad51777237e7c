import type { Logger } from "pino";
import {
  Backoff,
  type BackoffOptions,
  type DeviceCredentials,
  type DeviceSession,
  type RegistryClient,
} from "@iot/adapter-core";

/** The gateway's token credentials (IOT_MODBUS_GATEWAY_ID, _USERNAME, _TOKEN). */
export interface GatewayCredentials {
  readonly deviceId: string;
  readonly username: string;
  readonly token: string;
}

/**
 * Authenticates the gateway as a Modbus device with its token credentials (clientId = its deviceID), asking again
 * after a backoff (default 500 ms doubling to 30 s) for as long as the registry is unreachable or refuses, each
 * reason logged. Resolves with the session (not yet reported open), or undefined when `signal` aborts first.
 */
export async function loginGateway(
  registry: RegistryClient,
  gateway: GatewayCredentials,
  logger: Logger,
  signal: AbortSignal,
  backoffOptions: BackoffOptions = {},
): Promise<DeviceSession | undefined> {
  const backoff = new Backoff({ initialMs: 500, maxMs: 30_000, ...backoffOptions });
  const { deviceId, username, token } = gateway;
  const credentials: DeviceCredentials = { kind: "token", clientId: deviceId, username, token };
  while (!signal.aborted) {
    const outcome = await registry.authenticate("modbus", credentials, "", signal);
    if (signal.aborted) return undefined;
    if (outcome.ok) {
      if (!outcome.session.device.isGateway)
        logger.warn({ deviceId }, "the gateway's device is not a gateway in the registry");
      return outcome.session;
    }
    const retryInMs = backoff.next();
    logger.warn({ deviceId, code: outcome.code, reason: outcome.message, retryInMs }, "gateway not admitted");
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, retryInMs);
      signal.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
    });
  }
  return undefined;
}
