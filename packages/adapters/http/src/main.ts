/**
 * The HTTP device adapter process: reads its settings once, connects to the
 * registry, listens for devices and prints one READY line on stdout. Logs go
 * to stderr. SIGINT/SIGTERM: stop accepting, end device sessions (reported
 * closed), close the registry link, exit 0.
 */
import { createServer } from "node:http";
import { announcedHost, createAdapterLogger, registryClientFor, serveAdapterMetrics } from "@iot/adapter-core";
import { StartupError, listenError, readConfig, runMain, stopOnSignals } from "@iot/config";
import { httpAdapterSettings } from "./config.js";
import { createHttpAdapter } from "./http-adapter.js";

runMain("http-adapter", async () => {
  const signals = stopOnSignals("http-adapter");
  const config = readConfig(httpAdapterSettings, process.env);
  if (process.env.IOT_HTTP_MAX_BODY !== undefined)
    throw new StartupError(
      "IOT_HTTP_MAX_BODY is gone: set IOT_MAX_MESSAGE_SIZE, the message size limit of every adapter",
    );
  const logger = createAdapterLogger("http-adapter", config.logLevel);
  const metrics = await serveAdapterMetrics(config, httpAdapterSettings.metricsPort.env, logger);
  const registry = registryClientFor(config, "http", logger);
  const adapter = createHttpAdapter({
    registry,
    logger,
    policyDefault: config.policyDefault,
    keepAliveSeconds: config.keepAlive,
    maxMessageSize: config.maxMessageSize,
    maxWaitSeconds: config.maxWait,
  });
  const server = createServer({ requestTimeout: 0, headersTimeout: 30_000 }, adapter.handle);
  signals.onStop(async () => {
    logger.info("shutting down");
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    adapter.close();
    server.closeAllConnections();
    await closed;
    await metrics?.close();
    await registry.close();
  });
  registry.start();
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(listenError(err, "http device", config.httpPort, "IOT_HTTP_DEVICE_PORT")));
    server.listen(config.httpPort, config.httpHost, resolve);
  });
  const { port } = server.address() as { port: number };
  logger.info({ port, registry: config.registryUrls, instance: registry.instanceId }, "http adapter listening");
  process.stdout.write(
    `READY http-adapter http=http://${announcedHost(config.httpHost)}:${port}${metrics ? ` metrics=${metrics.url}` : ""}\n`,
  );
});
