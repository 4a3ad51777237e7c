import mqtt from "mqtt";
import { DIRECT_DEVICE, SIM_TOPIC, type SimProtocol } from "../sim-protocol.js";

/** MQTT: one connection per device (client id = deviceID), QoS 1 publishes acknowledged by PUBACK. */
export const mqttProtocol: SimProtocol = {
  name: "mqtt",
  cloudProtocol: 1,
  defaultTarget: "mqtt://{host}:1883",
  broker: { field: "mqttBroker", scheme: "mqtt" },
  deviceBody: () => DIRECT_DEVICE,
  async open({ target }, devices) {
    const clients = await Promise.all(
      devices.map((d) =>
        mqtt.connectAsync(target, {
          clientId: d.deviceID,
          username: d.deviceUsername,
          password: d.token,
          reconnectPeriod: 0,
        }),
      ),
    );
    return {
      async send(_d, i, payload) {
        await clients[i]!.publishAsync(SIM_TOPIC, payload, { qos: 1 });
      },
      async close() {
        await Promise.all(clients.map((c) => c.endAsync()));
      },
    };
  },
};
