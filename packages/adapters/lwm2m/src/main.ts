/**
 * The LwM2M adapter process: reads its settings once, connects to the registry, serves the LwM2M registration
 * interface on UDP (NoSec) and on DTLS with pre-shared keys or certificates unless IOT_LWM2M_DTLS_PORT is -1
 * (docs/devices/lwm2m.md, Security) and prints one READY line on stdout. Logs go to stderr. SIGINT/SIGTERM: stop
 * listening, end every registration (sessions reported closed), close the registry link, exit 0.
 */
import {
  createMessageLayer,
  dtlsCertificates,
  dtlsHostnames,
  listenDtls,
  listenUdp,
  type DtlsListener,
  type MessageLayer,
  type UdpListener,
} from "@iot/adapter-coap";
import { announcedHost, createAdapterLogger, registryClientFor, serveAdapterMetrics } from "@iot/adapter-core";
import { join } from "node:path";
import { readConfig, runMain, stopOnSignals } from "@iot/config";
import { lwm2mAdapterSettings } from "./config.js";
import { DOWNLOAD_PATH } from "./firmware/firmware-downloads.js";
import { createLwm2mServer } from "./lwm2m-server.js";
import type { Lwm2mServer } from "./lwm2m-server-types.js";

/** UDP receive buffer, bytes: devices register in bursts (after an outage, a cell coming back). */
const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

runMain("lwm2m-adapter", async () => {
  const signals = stopOnSignals("lwm2m-adapter");
  const config = readConfig(lwm2mAdapterSettings, process.env);
  const logger = createAdapterLogger("lwm2m-adapter", config.logLevel);
  const metrics = await serveAdapterMetrics(config, lwm2mAdapterSettings.metricsPort.env, logger);
  const registry = registryClientFor(config, "lwm2m", logger);
  let stopping = false;
  let udp: UdpListener | undefined;
  let dtls: DtlsListener | undefined;
  /** What the stop ends once it exists. */
  const started: { server?: Lwm2mServer; layers: MessageLayer[] } = { layers: [] };
  // Before the certificate request, which waits while the registry is away: a stop then still ends the process.
  signals.onStop(async () => {
    stopping = true;
    logger.info("shutting down");
    await udp?.close();
    await dtls?.close();
    started.server?.close();
    for (const l of started.layers) l.close();
    await metrics?.close();
    await registry.close();
  });
  registry.start();
  // Security mode Certificate on the DTLS port: the server certificate and the service CA come from the registry.
  const certificates =
    config.lwm2mDtlsPort < 0
      ? undefined
      : await dtlsCertificates(registry, dtlsHostnames(config.publicHost, config.lwm2mHost)).catch((err: unknown) =>
          stopping ? new Promise<never>(() => undefined) : Promise.reject(err),
        );
  const server = createLwm2mServer({
    registry,
    logger,
    policyDefault: config.policyDefault,
    queueAwakeSeconds: config.queueAwake,
    ...(certificates && { ca: certificates.ca }),
    // The listeners' ports are known once they are bound, before the first datagram.
    bootstrapDefaults: () => {
      const host = config.bootstrapHost || announcedHost(config.lwm2mHost);
      return {
        nosecUri: `coap://${host}:${udp?.port ?? config.lwm2mPort}`,
        ...(dtls ? { pskUri: `coaps://${host}:${dtls.port}` } : {}),
        ...(certificates ? { serverCertificate: certificates.ca.raw } : {}),
        lifetime: config.bootstrapLifetime,
        binding: config.bootstrapBinding,
      };
    },
    registrationsFile: join(config.dataDir, `lwm2m-registrations-${config.lwm2mPort}.json`),
    // Firmware packages (pull delivery) are served on the listener the device registered on.
    firmwareBaseUri: (secure) =>
      secure
        ? dtls && `coaps://${announcedHost(config.lwm2mHost)}:${dtls.port}`
        : udp && `coap://${announcedHost(config.lwm2mHost)}:${udp.port}`,
  });
  const layerOptions = {
    logger,
    maxBodyBytes: config.maxMessageSize,
    // An unanswered command frees the device after this, not CoAP's 93 s (docs/devices/lwm2m.md, Commands).
    requestTimeoutMs: config.requestTimeoutMs,
    // Firmware downloads resume from the block a device asks for, whatever the layer still holds.
    resumableBlock2: (path: readonly string[]) => path[0] === DOWNLOAD_PATH,
  };
  const layer = createMessageLayer(server.handler, {
    ...layerOptions,
    send: (datagram, peer) => udp?.send(datagram, peer),
  });
  // A layer of its own for DTLS (LwM2M Security mode PSK): Message IDs and exchanges are per listener.
  const secureLayer = createMessageLayer(server.secureHandler, {
    ...layerOptions,
    send: (datagram, peer) => dtls?.send(datagram, peer),
  });
  server.attach(layer, secureLayer);
  Object.assign(started, { server, layers: [layer, secureLayer] });
  udp = await listenUdp(layer, {
    port: config.lwm2mPort,
    host: config.lwm2mHost,
    onError: (err) => logger.warn({ err: err.message }, "udp socket error"),
    setting: "IOT_LWM2M_PORT",
    name: "lwm2m",
    receiveBufferBytes: RECEIVE_BUFFER_BYTES,
  });
  if (config.lwm2mDtlsPort >= 0)
    dtls = await listenDtls(server.secure, {
      port: config.lwm2mDtlsPort,
      host: config.lwm2mHost,
      idleMs: config.dtlsIdle * 1000,
      onError: (err) => logger.warn({ err: err.message }, "dtls socket error"),
      setting: "IOT_LWM2M_DTLS_PORT",
      name: "lwm2m-dtls",
      // One port for both security modes: the suites the client offers decide (PSK or ECDHE_ECDSA).
      ...(certificates && { certificate: { chain: certificates.chain, key: certificates.key } }),
    });
  // Clients still registered with the previous process keep their registration and observations.
  void server.restore().catch((err: Error) => logger.warn({ err: err.message }, "registrations not restored"));
  logger.info(
    { port: udp.port, dtlsPort: dtls?.port, registry: config.registryUrls, instance: registry.instanceId },
    "lwm2m adapter listening",
  );
  process.stdout.write(
    `READY lwm2m-adapter lwm2m=coap://${announcedHost(config.lwm2mHost)}:${udp.port}${dtls ? ` lwm2ms=coaps://${announcedHost(config.lwm2mHost)}:${dtls.port}` : ""}${metrics ? ` metrics=${metrics.url}` : ""}\n`,
  );
});
