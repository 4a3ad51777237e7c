import { port, text, type ConfigOf } from "@iot/config";
import { adapterSettings } from "@iot/adapter-core";

/** Settings of the MQTT adapter process: the shared adapter settings plus its listener. */
export const mqttAdapterSettings = {
  ...adapterSettings,
  mqttPort: port("IOT_MQTT_PORT", 1883, "MQTT (TCP) port for devices; 0 picks a free one"),
  mqttHost: text("IOT_MQTT_HOST", "0.0.0.0", "address the MQTT listener binds to"),
};

/** The typed values of mqttAdapterSettings. */
export type MqttAdapterConfig = ConfigOf<typeof mqttAdapterSettings>;
