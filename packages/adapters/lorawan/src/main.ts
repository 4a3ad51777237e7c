/**
 * The LoRaWAN adapter process: a LoRaWAN 1.0.x network server for Semtech UDP packet-forwarder gateways. Reads its
 * settings once, connects to the registry, listens on IOT_LORA_UDP_PORT and prints one READY line on stdout; logs go
 * to stderr. SIGINT/SIGTERM: stop listening, report counters, end every device and gateway session, close the
 * registry link, exit 0.
 */
import { announcedHost, createAdapterLogger, registryClientFor, serveAdapterMetrics } from "@iot/adapter-core";
import { readConfig, runMain, StartupError, stopOnSignals } from "@iot/config";
import { lorawanAdapterSettings } from "./config.js";
import { parseHex } from "./codec/hex.js";
import { createNetworkServer } from "./server/network-server.js";
import { LorawanUdpThread } from "./server/udp-thread.js";

runMain("lorawan-adapter", async () => {
  const signals = stopOnSignals("lorawan-adapter");
  const config = readConfig(lorawanAdapterSettings, process.env);
  if (!parseHex(config.netId, 3, "IOT_LORA_NET_ID").ok)
    throw new StartupError(`IOT_LORA_NET_ID "${config.netId}" must be 6 hex digits`);
  const logger = createAdapterLogger("lorawan-adapter", config.logLevel);
  const metrics = await serveAdapterMetrics(config, lorawanAdapterSettings.metricsPort.env, logger);
  const registry = registryClientFor(config, "lora", logger);
  const onError = (err: Error) => logger.warn({ err: err.message }, "udp socket error");
  // The socket lives in its own thread, so gateways' PUSH_ACKs never wait behind this event loop.
  const thread = new LorawanUdpThread(onError);
  const server = createNetworkServer({
    registry,
    logger,
    send: thread.send,
    netId: config.netId,
    policyDefault: config.policyDefault,
    gatewayTimeoutSeconds: config.gatewayTimeout,
    deviceTimeoutSeconds: config.deviceTimeout,
    devStatusEvery: config.devStatusEvery,
  });
  const udp = await thread.listen(server, { port: config.udpPort, host: config.udpHost });
  signals.onStop(async () => {
    logger.info({ stats: server.stats }, "shutting down");
    await udp.close();
    server.close();
    await registry.close();
    await metrics?.close();
  });
  registry.start();
  logger.info({ port: udp.port, registry: config.registryUrls, instance: registry.instanceId }, "lorawan adapter up");
  process.stdout.write(
    `READY lorawan-adapter lorawan=udp://${announcedHost(config.udpHost)}:${udp.port}${metrics ? ` metrics=${metrics.url}` : ""}\n`,
  );
});
