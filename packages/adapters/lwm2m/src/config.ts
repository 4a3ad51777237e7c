import { integer, port, text, type ConfigOf } from "@iot/config";
import { coapAdapterSettings } from "@iot/adapter-coap";
import { adapterMetricsSettings, adapterSettings } from "@iot/adapter-core";

/**
 * Settings of the LwM2M adapter process: the shared adapter settings, listeners (NoSec and DTLS-PSK; the DTLS
 * sessions' idle limit is the CoAP adapter's IOT_COAPS_IDLE), queue mode and request timeout.
 */
export const lwm2mAdapterSettings = {
  ...adapterSettings,
  ...adapterMetricsSettings("IOT_LWM2M_METRICS_PORT"),
  lwm2mPort: port("IOT_LWM2M_PORT", 5783, "LwM2M server (CoAP over UDP) port for devices; 0 picks a free one"),
  lwm2mDtlsPort: integer(
    "IOT_LWM2M_DTLS_PORT",
    5784,
    "LwM2M over DTLS (UDP) port for devices with pre-shared keys (identity the endpoint name, key token) or certificates (issued by the service CA, authType 2); 0 picks a free one, -1 turns it off",
    -1,
    65535,
  ),
  dataDir: text(
    "IOT_DATA_DIR",
    "./data",
    "folder where the LwM2M adapter keeps its registrations and their observations across restarts (lwm2m-registrations-<port>.json)",
  ),
  lwm2mHost: text("IOT_LWM2M_HOST", "0.0.0.0", "address the LwM2M listener binds to"),
  queueAwake: integer(
    "IOT_LWM2M_QUEUE_AWAKE",
    93,
    "seconds a queue-mode device counts as awake after each Register or Update (CoAP MAX_TRANSMIT_WAIT)",
    1,
    86_400,
  ),
  dtlsIdle: coapAdapterSettings.coapsIdle,
  publicHost: coapAdapterSettings.publicHost,
  requestTimeoutMs: integer(
    "IOT_LWM2M_REQUEST_TIMEOUT_MS",
    30_000,
    "longest wait for a device's answer to one request (a command) from its first transmission, ms; then it fails",
    100,
    93_000,
  ),
  bootstrapHost: text(
    "IOT_LWM2M_BOOTSTRAP_HOST",
    "",
    "host name a bootstrap writes into the client's LwM2M server URI (coap://host:IOT_LWM2M_PORT, coaps://host:IOT_LWM2M_DTLS_PORT); empty: the announced host of IOT_LWM2M_HOST",
  ),
  bootstrapLifetime: integer(
    "IOT_LWM2M_BOOTSTRAP_LIFETIME",
    300,
    "registration lifetime, seconds, a bootstrap writes when the device's record gives none",
    1,
    2_147_483_647,
  ),
  bootstrapBinding: text(
    "IOT_LWM2M_BOOTSTRAP_BINDING",
    "U",
    "binding a bootstrap writes when the device's record gives none (U, UQ)",
  ),
};

/** The typed values of lwm2mAdapterSettings. */
export type Lwm2mAdapterConfig = ConfigOf<typeof lwm2mAdapterSettings>;
