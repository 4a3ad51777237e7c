import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { enableDefaultMetrics, integer, listenError, metricsTokenSetting, scrapeMetrics, text } from "@iot/config";
import type { Logger } from "pino";
import { announcedHost } from "./announce.js";

/** Path the metrics are served at, on the adapter's metrics port. */
export const METRICS_PATH = "/metrics";

/**
 * The metrics settings of one adapter, to spread into its settings: its own port variable (so the adapters of one
 * host, which share an environment under `pnpm start`, never collide), and the host and token every process shares.
 * The port is off (-1) unless set; 0 picks a free one.
 */
export function adapterMetricsSettings(portEnv: `IOT_${string}_METRICS_PORT`) {
  return {
    metricsPort: integer(
      portEnv,
      -1,
      "Port serving this adapter's Prometheus metrics at /metrics; -1 (default): off, 0 picks a free port.",
      -1,
      65535,
    ),
    metricsHost: text("IOT_METRICS_HOST", "0.0.0.0", "Address the adapters' metrics listeners bind to."),
    metricsToken: metricsTokenSetting,
  };
}

/** The settings `serveAdapterMetrics` reads (see `adapterMetricsSettings`). */
export interface AdapterMetricsConfig {
  readonly metricsPort: number;
  readonly metricsHost: string;
  readonly metricsToken: string | undefined;
}

/** A running metrics listener. */
export interface MetricsListener {
  readonly port: number;
  /** `http://host:port/metrics`, for the READY line. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves the process's Prometheus metrics (adapter metrics plus prom-client's process metrics) on the adapter's
 * metrics port: `GET /metrics`, with `Authorization: Bearer <IOT_METRICS_TOKEN>` when a token is set. Answers
 * undefined when the port is off (-1). A taken port fails the start with one line naming `portEnv`.
 */
export async function serveAdapterMetrics(
  config: AdapterMetricsConfig,
  portEnv: string,
  logger: Logger,
): Promise<MetricsListener | undefined> {
  if (config.metricsPort < 0) return undefined;
  enableDefaultMetrics();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== METRICS_PATH || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found: GET /metrics\n");
      return;
    }
    scrapeMetrics(config.metricsToken, req.headers.authorization).then(
      (s) => res.writeHead(s.status, { "content-type": s.contentType, ...s.headers }).end(s.body),
      (err: unknown) => {
        logger.error({ err }, "metrics scrape failed");
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("metrics scrape failed\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.metricsPort, config.metricsHost, () => resolve());
  }).catch((err: unknown) => {
    throw listenError(err, "metrics", config.metricsPort, portEnv);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${announcedHost(config.metricsHost)}:${port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
