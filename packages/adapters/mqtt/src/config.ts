import { integer, text, type ConfigOf } from "@iot/config";
import { adapterMetricsSettings, adapterSettings } from "@iot/adapter-core";

/** A listener's port: 0 picks a free one, -1 turns the listener off. */
const listenerPort = (env: string, fallback: number, doc: string) =>
  integer(env, fallback, `${doc}; 0 picks a free port, -1 turns it off.`, -1, 65535);

/** Settings of the MQTT adapter process: the shared adapter settings plus its listeners. */
export const mqttAdapterSettings = {
  ...adapterSettings,
  ...adapterMetricsSettings("IOT_MQTT_METRICS_PORT"),
  mqttPort: listenerPort("IOT_MQTT_PORT", 1883, "MQTT over TCP (token devices)"),
  mqttsPort: listenerPort("IOT_MQTTS_PORT", 8883, "MQTT over TLS (token devices; no client certificate asked)"),
  mqttssPort: listenerPort(
    "IOT_MQTTSS_PORT",
    8884,
    "MQTT over mutual TLS (certificate devices: a client certificate issued by the service CA is required)",
  ),
  mqttWsPort: listenerPort("IOT_MQTT_WS_PORT", 8083, "MQTT over WebSocket at ws://host:port/mqtt (token devices)"),
  mqttHost: text("IOT_MQTT_HOST", "0.0.0.0", "Address every MQTT listener binds to."),
  publicHost: text(
    "IOT_PUBLIC_HOST",
    "localhost",
    "Host name devices use to reach the adapter; the issued TLS certificate names it (with localhost, 127.0.0.1 and ::1).",
  ),
  tlsCert: text(
    "IOT_MQTT_TLS_CERT",
    undefined,
    "PEM file of the TLS listeners' server certificate (with its chain); unset: issued by the service CA at every start.",
  ),
  tlsKey: text("IOT_MQTT_TLS_KEY", undefined, "PEM file of that certificate's private key; set both or neither."),
};

/** The typed values of mqttAdapterSettings. */
export type MqttAdapterConfig = ConfigOf<typeof mqttAdapterSettings>;
