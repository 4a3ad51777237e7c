/**
 * The CoAP adapter process: reads its settings once, connects to the
 * registry, listens for devices on UDP (plain, and DTLS with pre-shared keys
 * unless IOT_COAPS_PORT is -1) and prints one READY line on stdout.
 * Logs go to stderr. SIGINT/SIGTERM: stop listening, end observations and
 * device sessions (reported closed), close the registry link, exit 0.
 */
import { announcedHost, createAdapterLogger, registryClientFor, serveAdapterMetrics } from "@iot/adapter-core";
import { readConfig, runMain, stopOnSignals } from "@iot/config";
import { createCoapAdapter } from "./coap-adapter.js";
import { coapAdapterSettings } from "./config.js";
import { listenDtls } from "./transport/dtls.js";
import { listenUdp } from "./transport/udp.js";

runMain("coap-adapter", async () => {
  const signals = stopOnSignals("coap-adapter");
  const config = readConfig(coapAdapterSettings, process.env);
  const logger = createAdapterLogger("coap-adapter", config.logLevel);
  const metrics = await serveAdapterMetrics(config, coapAdapterSettings.metricsPort.env, logger);
  const registry = registryClientFor(config, "coap", logger);
  const adapter = createCoapAdapter({
    registry,
    logger,
    policyDefault: config.policyDefault,
    keepAliveSeconds: config.keepAlive,
    maxMessageSize: config.maxMessageSize,
  });
  const udp = await listenUdp(adapter, {
    port: config.coapPort,
    host: config.coapHost,
    onError: (err) => logger.warn({ err: err.message }, "udp socket error"),
  });
  const dtls =
    config.coapsPort < 0
      ? undefined
      : await listenDtls(adapter.secure, {
          port: config.coapsPort,
          idleMs: config.coapsIdle * 1000,
          host: config.coapHost,
          onError: (err) => logger.warn({ err: err.message }, "dtls socket error"),
        });
  signals.onStop(async () => {
    logger.info("shutting down");
    await udp.close();
    await dtls?.close();
    adapter.close();
    await metrics?.close();
    await registry.close();
  });
  registry.start();
  logger.info(
    { port: udp.port, dtlsPort: dtls?.port, registry: config.registryUrls, instance: registry.instanceId },
    "coap adapter listening",
  );
  process.stdout.write(
    `READY coap-adapter coap=coap://${announcedHost(config.coapHost)}:${udp.port}${dtls ? ` coaps=coaps://${announcedHost(config.coapHost)}:${dtls.port}` : ""}${metrics ? ` metrics=${metrics.url}` : ""}\n`,
  );
});
