/**
 * The Modbus adapter process, one per Modbus gateway: reads its settings once, connects to the registry, prints one
 * READY line on stdout, and logs in as the gateway (retrying, with the refusal logged, until it is let in: a gateway
 * whose record is fixed meanwhile needs no restart, and `pnpm start` is not held up); the registry then pushes
 * the gateway's channel configuration and the adapter polls its slaves. Logs go to stderr. SIGINT/SIGTERM (also
 * while it still waits for the registry): stop polling, report every session closed, close the registry link,
 * exit 0.
 */
import { createAdapterLogger, registryClientFor, serveAdapterMetrics } from "@iot/adapter-core";
import { StartupError, readConfig, runMain, stopOnSignals } from "@iot/config";
import { modbusAdapterSettings } from "./config.js";
import { createModbusAdapter } from "./modbus-adapter.js";

runMain("modbus-adapter", async () => {
  const signals = stopOnSignals("modbus-adapter");
  const config = readConfig(modbusAdapterSettings, process.env);
  if (!config.gatewayId) throw new StartupError("IOT_MODBUS_GATEWAY_ID is required: the deviceID of the gateway");
  if (!config.gatewayToken) throw new StartupError("IOT_MODBUS_GATEWAY_TOKEN is required: the gateway's token");
  const logger = createAdapterLogger("modbus-adapter", config.logLevel);
  const metrics = await serveAdapterMetrics(config, modbusAdapterSettings.metricsPort.env, logger);
  const registry = registryClientFor(config, "modbus", logger);
  const adapter = createModbusAdapter({
    registry,
    logger,
    gateway: {
      deviceId: config.gatewayId,
      username: config.gatewayUsername ?? config.gatewayId,
      token: config.gatewayToken,
    },
    reportEverySeconds: config.reportEvery,
    policyDefault: config.policyDefault,
  });
  signals.onStop(async () => {
    logger.info("shutting down");
    await adapter.close();
    await metrics?.close();
    await registry.close();
  });
  registry.start();
  const loggedIn = adapter.start();
  logger.info({ registry: config.registryUrls, instance: registry.instanceId }, "modbus adapter running");
  process.stdout.write(`READY modbus-adapter gateway=${config.gatewayId}${metrics ? ` metrics=${metrics.url}` : ""}\n`);
  await loggedIn;
});
