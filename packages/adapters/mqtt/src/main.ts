/**
 * The MQTT adapter process: reads its settings once, connects to the
 * registry, listens for devices and prints one READY line on stdout. Logs go
 * to stderr. SIGINT/SIGTERM: stop accepting, disconnect devices (their
 * sessions are reported closed), close the registry link, exit 0.
 */
import { createAdapterLogger, createGrpcRegistryClient } from "@iot/adapter-core";
import { readConfig, runMain, stopOnSignals } from "@iot/config";
import { mqttAdapterSettings } from "./config.js";
import { createMqttAdapter } from "./mqtt-adapter.js";
import { listenTcp } from "./transport/tcp.js";

/** A host clients can dial: wildcard binds are announced as the loopback address. */
function announcedHost(bound: string): string {
  return bound === "0.0.0.0" || bound === "::" || bound === "" ? "127.0.0.1" : bound;
}

runMain("mqtt-adapter", async () => {
  const signals = stopOnSignals("mqtt-adapter");
  const config = readConfig(mqttAdapterSettings, process.env);
  const logger = createAdapterLogger("mqtt-adapter", config.logLevel);
  const registry = createGrpcRegistryClient({
    address: config.registryUrl, protocol: "mqtt", logger, bufferLimit: config.bufferLimit,
  });
  const adapter = await createMqttAdapter({ registry, logger, policyDefault: config.policyDefault });
  const tcp = await listenTcp(adapter, { port: config.mqttPort, host: config.mqttHost });
  registry.start();
  signals.onStop(async () => {
    logger.info("shutting down");
    const stopped = tcp.close();
    await adapter.close();
    await stopped;
    await registry.close();
  });
  logger.info({ port: tcp.port, registry: config.registryUrl, instance: registry.instanceId }, "mqtt adapter listening");
  process.stdout.write(`READY mqtt-adapter mqtt=mqtt://${announcedHost(config.mqttHost)}:${tcp.port}\n`);
});
