/**
 * The CoAP adapter process: reads its settings once, connects to the
 * registry, listens for devices on UDP (plain, DTLS with pre-shared keys
 * unless IOT_COAPS_PORT is -1, DTLS with certificates unless IOT_COAPSS_PORT
 * is -1) and prints one READY line on stdout.
 * Logs go to stderr. SIGINT/SIGTERM: stop listening, end observations and
 * device sessions (reported closed), close the registry link, exit 0.
 */
import { announcedHost, createAdapterLogger, registryClientFor, serveAdapterMetrics } from "@iot/adapter-core";
import { readConfig, runMain, stopOnSignals } from "@iot/config";
import { createCoapAdapter, type CoapAdapter } from "./coap-adapter.js";
import { coapAdapterSettings } from "./config.js";
import { dtlsCertificates, dtlsHostnames } from "./dtls-certificates.js";
import { listenDtls } from "./transport/dtls.js";
import { listenUdp } from "./transport/udp.js";

runMain("coap-adapter", async () => {
  const signals = stopOnSignals("coap-adapter");
  const config = readConfig(coapAdapterSettings, process.env);
  const logger = createAdapterLogger("coap-adapter", config.logLevel);
  const metrics = await serveAdapterMetrics(config, coapAdapterSettings.metricsPort.env, logger);
  const registry = registryClientFor(config, "coap", logger);
  let stopping = false;
  let adapter: CoapAdapter | undefined;
  const listeners: { close(): Promise<void> }[] = [];
  signals.onStop(async () => {
    stopping = true;
    logger.info("shutting down");
    await Promise.all(listeners.map((l) => l.close()));
    adapter?.close();
    await metrics?.close();
    await registry.close();
  });
  registry.start();
  // The certificate listener's server certificate and the service CA come from the registry (waits while it is away;
  // a stop meanwhile ends the process through onStop, not as a failed start).
  const certificates =
    config.coapssPort < 0
      ? undefined
      : await dtlsCertificates(registry, dtlsHostnames(config.publicHost, config.coapHost)).catch((err: unknown) =>
          stopping ? new Promise<never>(() => undefined) : Promise.reject(err),
        );
  adapter = createCoapAdapter({
    registry,
    logger,
    policyDefault: config.policyDefault,
    keepAliveSeconds: config.keepAlive,
    maxMessageSize: config.maxMessageSize,
    ...(certificates && { ca: certificates.ca }),
  });
  const udp = await listenUdp(adapter, {
    port: config.coapPort,
    host: config.coapHost,
    onError: (err) => logger.warn({ err: err.message }, "udp socket error"),
  });
  listeners.push(udp);
  const dtlsOptions = {
    idleMs: config.coapsIdle * 1000,
    host: config.coapHost,
    onError: (err: Error) => logger.warn({ err: err.message }, "dtls socket error"),
  };
  const dtls =
    config.coapsPort < 0 ? undefined : await listenDtls(adapter.secure, { ...dtlsOptions, port: config.coapsPort });
  if (dtls) listeners.push(dtls);
  const dtlsCerts = certificates
    ? await listenDtls(adapter.secure, {
        ...dtlsOptions,
        port: config.coapssPort,
        psk: false,
        certificate: { chain: certificates.chain, key: certificates.key },
        setting: "IOT_COAPSS_PORT",
        name: "coapss",
      })
    : undefined;
  if (dtlsCerts) listeners.push(dtlsCerts);
  const host = announcedHost(config.coapHost);
  logger.info(
    {
      port: udp.port,
      dtlsPort: dtls?.port,
      dtlsCertificatePort: dtlsCerts?.port,
      registry: config.registryUrls,
      instance: registry.instanceId,
    },
    "coap adapter listening",
  );
  process.stdout.write(
    `READY coap-adapter coap=coap://${host}:${udp.port}${dtls ? ` coaps=coaps://${host}:${dtls.port}` : ""}${dtlsCerts ? ` coapss=coaps://${host}:${dtlsCerts.port}` : ""}${metrics ? ` metrics=${metrics.url}` : ""}\n`,
  );
});
