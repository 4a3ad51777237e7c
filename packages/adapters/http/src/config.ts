import { integer, port, text, type ConfigOf } from "@iot/config";
import { adapterMetricsSettings, adapterSettings } from "@iot/adapter-core";

/** Settings of the HTTP device adapter process: the shared adapter settings plus its listener. */
export const httpAdapterSettings = {
  ...adapterSettings,
  ...adapterMetricsSettings("IOT_HTTP_METRICS_PORT"),
  httpPort: port(
    "IOT_HTTP_DEVICE_PORT",
    8081,
    "HTTP port for devices (POST /topics/<topic>, GET /topics/<topic>?wait=); 0 picks a free one",
  ),
  httpHost: text("IOT_HTTP_DEVICE_HOST", "0.0.0.0", "address the HTTP device listener binds to"),
  keepAlive: integer(
    "IOT_HTTP_KEEPALIVE",
    60,
    "seconds an HTTP device counts as online after its last request (longer while it long-polls)",
    1,
    86_400,
  ),
  maxWait: integer("IOT_HTTP_MAX_WAIT", 300, "longest long-poll a device may ask for with ?wait=, seconds", 0, 3_600),
};

/** The typed values of httpAdapterSettings. */
export type HttpAdapterConfig = ConfigOf<typeof httpAdapterSettings>;
