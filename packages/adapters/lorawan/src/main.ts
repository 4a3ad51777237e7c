/**
 * The LoRaWAN adapter process: a LoRaWAN 1.0.x network server for Semtech UDP packet-forwarder gateways and, with
 * IOT_LORA_BASICS_PORT set, LoRa Basics Station gateways. Reads its settings once, connects to the registry, listens
 * on IOT_LORA_UDP_PORT (and IOT_LORA_BASICS_PORT) and prints one READY line on stdout; logs go
 * to stderr. SIGINT/SIGTERM: stop listening, report counters, end every device and gateway session, close the
 * registry link, exit 0.
 */
import { announcedHost, createAdapterLogger, registryClientFor, serveAdapterMetrics } from "@iot/adapter-core";
import { readConfig, runMain, StartupError, stopOnSignals } from "@iot/config";
import { lorawanAdapterSettings } from "./config.js";
import { readFileSync } from "node:fs";
import { parseHex } from "./codec/hex.js";
import { regionByName } from "./codec/region.js";
import { listenBasicsStation } from "./server/basics-station/station-server.js";
import { createNetworkServer } from "./server/network-server.js";
import { LorawanUdpThread } from "./server/udp-thread.js";

runMain("lorawan-adapter", async () => {
  const signals = stopOnSignals("lorawan-adapter");
  const config = readConfig(lorawanAdapterSettings, process.env);
  if (!parseHex(config.netId, 3, "IOT_LORA_NET_ID").ok)
    throw new StartupError(`IOT_LORA_NET_ID "${config.netId}" must be 6 hex digits`);
  const basicsRegion = regionByName(config.basicsRegion);
  if (!basicsRegion.ok) throw new StartupError(`IOT_LORA_BASICS_REGION: ${basicsRegion.reason}`);
  if (!config.basicsTlsCert !== !config.basicsTlsKey)
    throw new StartupError("IOT_LORA_BASICS_TLS_CERT and IOT_LORA_BASICS_TLS_KEY go together");
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
  const basics =
    config.basicsPort < 0
      ? undefined
      : await listenBasicsStation({
          server,
          logger,
          region: basicsRegion.value,
          netId: config.netId,
          port: config.basicsPort,
          host: config.basicsHost,
          ...(config.basicsTlsCert && config.basicsTlsKey
            ? { tls: { cert: readFileSync(config.basicsTlsCert), key: readFileSync(config.basicsTlsKey) } }
            : {}),
          ...(config.basicsToken ? { token: config.basicsToken } : {}),
          pingSeconds: Math.max(5, Math.floor(config.gatewayTimeout / 3)),
        });
  signals.onStop(async () => {
    logger.info({ stats: server.stats }, "shutting down");
    await basics?.close();
    await udp.close();
    server.close();
    await registry.close();
    await metrics?.close();
  });
  registry.start();
  logger.info({ port: udp.port, registry: config.registryUrls, instance: registry.instanceId }, "lorawan adapter up");
  process.stdout.write(
    `READY lorawan-adapter lorawan=udp://${announcedHost(config.udpHost)}:${udp.port}${basics ? ` basics=${basics.url.split("://")[0]}://${announcedHost(config.basicsHost)}:${basics.port}` : ""}${metrics ? ` metrics=${metrics.url}` : ""}\n`,
  );
});
