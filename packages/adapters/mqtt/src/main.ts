/**
 * The MQTT adapter process: reads its settings once, connects to the
 * registry, gets its TLS listener certificate, listens for devices over TCP,
 * TLS, mutual TLS and WebSocket, and prints one READY line on stdout. Logs go
 * to stderr. SIGINT/SIGTERM (also while it still waits for the registry):
 * stop accepting, disconnect devices (their sessions are reported closed),
 * close the registry link, exit 0.
 */
import { announcedHost, createAdapterLogger, registryClientFor, serveAdapterMetrics } from "@iot/adapter-core";
import { StartupError, readConfig, runMain, stopOnSignals } from "@iot/config";
import { mqttAdapterSettings } from "./config.js";
import { createMqttAdapter } from "./mqtt-adapter.js";
import type { Listener } from "./transport/listen.js";
import { listenerHostnames, listenerTls } from "./transport/listener-tls.js";
import { listenTcp } from "./transport/tcp.js";
import { listenTls } from "./transport/tls.js";
import { WS_PATH, listenWs } from "./transport/ws.js";

/** A port setting of -1 turns its listener off. */
const OFF = -1;

runMain("mqtt-adapter", async () => {
  const signals = stopOnSignals("mqtt-adapter");
  const config = readConfig(mqttAdapterSettings, process.env);
  if ([config.mqttPort, config.mqttsPort, config.mqttssPort, config.mqttWsPort].every((p) => p === OFF)) {
    throw new StartupError(
      "every MQTT listener is off (IOT_MQTT_PORT, IOT_MQTTS_PORT, IOT_MQTTSS_PORT and IOT_MQTT_WS_PORT are -1)",
    );
  }
  const logger = createAdapterLogger("mqtt-adapter", config.logLevel);
  const metrics = await serveAdapterMetrics(config, mqttAdapterSettings.metricsPort.env, logger);
  const registry = registryClientFor(config, "mqtt", logger);
  const adapter = await createMqttAdapter({
    registry,
    logger,
    policyDefault: config.policyDefault,
    maxMessageSize: config.maxMessageSize,
  });
  const listeners: Listener[] = [];
  let stopping = false;
  signals.onStop(async () => {
    stopping = true;
    logger.info("shutting down");
    const stopped = Promise.all(listeners.map((l) => l.close()));
    await adapter.close();
    await stopped;
    await metrics?.close();
    await registry.close();
  });
  registry.start();

  const host = config.mqttHost;
  const urls: string[] = [];
  const announce = (key: string, scheme: string, listener: Listener, path = "") => {
    listeners.push(listener);
    urls.push(`${key}=${scheme}://${announcedHost(host)}:${listener.port}${path}`);
  };
  if (config.mqttPort !== OFF) announce("mqtt", "mqtt", await listenTcp(adapter, { port: config.mqttPort, host }));
  if (config.mqttsPort !== OFF || config.mqttssPort !== OFF) {
    const material = await listenerTls({
      registry,
      logger,
      certFile: config.tlsCert,
      keyFile: config.tlsKey,
      hostnames: listenerHostnames(config.publicHost, host),
      needCa: config.mqttssPort !== OFF,
      // A stop while the registry is still away ends the process through onStop, not as a failed start.
    }).catch((err: unknown) => (stopping ? new Promise<never>(() => undefined) : Promise.reject(err)));
    const tls = { host, material, logger };
    if (config.mqttsPort !== OFF)
      announce(
        "mqtts",
        "mqtts",
        await listenTls(adapter, { ...tls, port: config.mqttsPort, mutual: false, envName: "IOT_MQTTS_PORT" }),
      );
    if (config.mqttssPort !== OFF)
      announce(
        "mqttss",
        "mqtts",
        await listenTls(adapter, { ...tls, port: config.mqttssPort, mutual: true, envName: "IOT_MQTTSS_PORT" }),
      );
  }
  if (config.mqttWsPort !== OFF)
    announce(
      "ws",
      "ws",
      await listenWs(adapter, { port: config.mqttWsPort, host, envName: "IOT_MQTT_WS_PORT" }),
      WS_PATH,
    );
  logger.info(
    { listeners: urls, registry: config.registryUrls, instance: registry.instanceId },
    "mqtt adapter listening",
  );
  process.stdout.write(`READY mqtt-adapter ${urls.join(" ")}${metrics ? ` metrics=${metrics.url}` : ""}\n`);
});
