export { createMqttAdapter, type MqttAdapter, type MqttAdapterOptions } from "./mqtt-adapter.js";
export type { MqttAdapterStats } from "./context.js";
export { listenTcp, type TcpListener } from "./transport/tcp.js";
export { mqttAdapterSettings, type MqttAdapterConfig } from "./config.js";
export { internalClientId } from "./hooks/authenticate.js";
