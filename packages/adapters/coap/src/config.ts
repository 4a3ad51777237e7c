import { integer, port, text, type ConfigOf } from "@iot/config";
import { adapterMetricsSettings, adapterSettings } from "@iot/adapter-core";

/** Settings of the CoAP adapter process: the shared adapter settings plus its listener. */
export const coapAdapterSettings = {
  ...adapterSettings,
  ...adapterMetricsSettings("IOT_COAP_METRICS_PORT"),
  coapPort: port("IOT_COAP_PORT", 5683, "CoAP (UDP) port for devices; 0 picks a free one"),
  coapsPort: integer(
    "IOT_COAPS_PORT",
    5684,
    "CoAP over DTLS (UDP) port for devices with pre-shared keys (identity deviceUsername, key token); 0 picks a free one, -1 turns it off",
    -1,
    65535,
  ),
  coapssPort: integer(
    "IOT_COAPSS_PORT",
    5685,
    "CoAP over DTLS (UDP) port for certificate devices (mutual: a client certificate issued by the service CA, authType 2); 0 picks a free one, -1 turns it off",
    -1,
    65535,
  ),
  publicHost: text(
    "IOT_PUBLIC_HOST",
    "localhost",
    "Host name devices use to reach the adapter; the DTLS server certificate names it (with localhost, 127.0.0.1 and ::1).",
  ),
  coapsIdle: integer(
    "IOT_COAPS_IDLE",
    3600,
    "seconds a DTLS session may send nothing before the adapter closes it (the device then handshakes again)",
    1,
    604_800,
  ),
  coapHost: text("IOT_COAP_HOST", "0.0.0.0", "address the CoAP listener binds to"),
  keepAlive: integer(
    "IOT_COAP_KEEPALIVE",
    60,
    "seconds a CoAP device counts as online after its last request (longer while it observes)",
    1,
    86_400,
  ),
};

/** The typed values of coapAdapterSettings. */
export type CoapAdapterConfig = ConfigOf<typeof coapAdapterSettings>;
